// The JSON report: the whole report is rewritten atomically after begin(), after every add() (paced by its cost:
// report_output.hpp) and at end(), so that a run that dies keeps what was measured, marked "incomplete".
#pragma once

#include "core/report/report_output.hpp"
#include "core/report/reporter.hpp"

#include <string>
#include <vector>

namespace distbench {

class JsonReporter final : public Reporter {
 public:
  // "-": standard output, at the end; `now` paces the rewrites (tests pass a clock they drive)
  explicit JsonReporter(std::string path, ReportOutput::Now now = ReportOutput::Clock::now);

 protected:
  void do_begin(const RunInfo& info) override;
  void do_add(const std::vector<Record>& row) override;
  void do_end(const RunInfo& info) override;
  void do_claim() override { output_.claim(); }

 private:
  std::string text() const;  // the whole report as it stands

  ReportOutput output_;
  RunInfo info_;
};

}  // namespace distbench
