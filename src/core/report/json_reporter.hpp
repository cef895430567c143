// The JSON report: the whole report is rewritten atomically after begin(), after every add() (paced by its cost:
// report_output.hpp) and at end(), so that a run that dies keeps what was measured, marked "incomplete".
#pragma once

#include "core/report/file_reporter.hpp"

#include <string>

namespace distbench {

class JsonReporter final : public FileReporter {
 public:
  using FileReporter::FileReporter;

 protected:
  void on_begin(const RunInfo& info) override;
  void on_end(const RunInfo& info) override { info_ = info; }
  std::string text() const override;  // the whole report as it stands

 private:
  RunInfo info_;
};

}  // namespace distbench
