#include "core/report/json_reporter.hpp"

#include "core/error.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/json_model.hpp"

namespace distbench {

JsonReporter::JsonReporter(std::string path) : path_(std::move(path)) {}

void JsonReporter::do_begin(const RunInfo& info, const SweepPlan& plan) {
  std::lock_guard lock(mutex_);
  info_ = info;
  info_.status = "incomplete";
  info_.end_time.clear();
  info_.error.clear();
  plan_ = plan;
  results_.clear();
  begun_ = true;
  ended_ = false;
  rewrite();
}

void JsonReporter::do_add(const std::vector<CaseResult>& results) {
  std::lock_guard lock(mutex_);
  if (ended_) return;
  if (!begun_) throw failure("internal error: JsonReporter::add() before begin()");
  results_.insert(results_.end(), results.begin(), results.end());
  rewrite();
}

void JsonReporter::do_end(const RunInfo& info) {
  std::lock_guard lock(mutex_);
  if (ended_ || !begun_) return;  // nothing to report before begin(): no plan, no results
  info_ = info;
  ended_ = true;
  rewrite();
}

void JsonReporter::rewrite() {
  // Invalid UTF-8 (an odd host name or variable) is replaced rather than losing the report.
  const std::string text =
      make_report_json(info_, plan_, results_).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  // Rows in flight only need to survive the process; the final report goes to disk as well.
  write_file_atomically(path_, text + "\n", ended_ ? Durability::disk : Durability::process);
}

}  // namespace distbench
