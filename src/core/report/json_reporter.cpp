#include "core/report/json_reporter.hpp"

#include "core/report/json_model.hpp"

namespace distbench {

void JsonReporter::on_begin(const RunInfo& info) {
  info_ = info;
  info_.status = "incomplete";
  info_.end_time.clear();
  info_.error.clear();
}

std::string JsonReporter::text() const {
  // Invalid UTF-8 (an odd host name or variable) is replaced rather than losing the report.
  return make_report_json(info_, description(), records(), rows())
             .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

}  // namespace distbench
