#include "core/report/json_reporter.hpp"

#include "core/report/atomic_file.hpp"
#include "core/report/json_model.hpp"

namespace distbench {

JsonReporter::JsonReporter(std::string path) : path_(std::move(path)) {}

void JsonReporter::do_begin(const RunInfo& info) {
  info_ = info;
  info_.status = "incomplete";
  info_.end_time.clear();
  info_.error.clear();
  rewrite(Durability::process);
}

void JsonReporter::do_add(const std::vector<Record>&) { rewrite(Durability::process); }

void JsonReporter::do_end(const RunInfo& info) {
  info_ = info;
  rewrite(final_durability(info.status));
}

void JsonReporter::rewrite(Durability durability) {
  // Invalid UTF-8 (an odd host name or variable) is replaced rather than losing the report.
  const std::string text = make_report_json(info_, description(), records())
                               .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  write_file_atomically(path_, text + "\n", durability);
}

}  // namespace distbench
