// nccl-tests' JSON (-J/--output-file FILE.json; nccl_tests_json.hpp says what it holds): the whole file rewritten
// atomically after begin(), after every row and at end(), as the other reports are.
#pragma once

#include "core/report/file_reporter.hpp"

#include <string>

namespace distbench {

class NcclTestsJsonReporter final : public FileReporter {
 public:
  using FileReporter::FileReporter;

 protected:
  void on_begin(const RunInfo& info) override;
  void on_end(const RunInfo& info) override { info_ = info; }
  std::string text() const override;

 private:
  RunInfo info_;
};

}  // namespace distbench
