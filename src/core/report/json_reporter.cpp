#include "core/report/json_reporter.hpp"

#include "core/report/json_model.hpp"

namespace distbench {

JsonReporter::JsonReporter(std::string path, ReportOutput::Now now) : output_(std::move(path), std::move(now)) {}

void JsonReporter::do_begin(const RunInfo& info) {
  info_ = info;
  info_.status = "incomplete";
  info_.end_time.clear();
  info_.error.clear();
  output_.update([this] { return text(); });
}

void JsonReporter::do_add(const std::vector<Record>&) {
  output_.update([this] { return text(); });
}

void JsonReporter::do_end(const RunInfo& info) {
  info_ = info;
  output_.finish(text(), info.status);
}

std::string JsonReporter::text() const {
  // Invalid UTF-8 (an odd host name or variable) is replaced rather than losing the report.
  return make_report_json(info_, description(), records())
             .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

}  // namespace distbench
