#include "core/report/nccl_tests_json_reporter.hpp"

#include "core/report/nccl_tests_json.hpp"

namespace distbench {

void NcclTestsJsonReporter::on_begin(const RunInfo& info) {
  info_ = info;
  info_.status = "incomplete";
  info_.end_time.clear();
  info_.error.clear();
}

std::string NcclTestsJsonReporter::text() const {
  // Invalid UTF-8 (an odd host name or variable) is replaced rather than losing the file.
  return nccl_tests_json(info_, description(), records(), rows())
             .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

}  // namespace distbench
