// A Markdown view of the run, the form a pull-request comment wants: a heading, one line on what ran, the table
// (the benchmark's columns; each group's columns prefixed by its name when there are several), and the summary.
// Rewritten atomically after every row, like the other report files.
#pragma once

#include "core/report/report_output.hpp"
#include "core/report/reporter.hpp"

#include <string>
#include <vector>

namespace distbench {

class MarkdownReporter final : public Reporter {
 public:
  // "-": standard output, at the end; `now` paces the rewrites (tests pass a clock they drive)
  explicit MarkdownReporter(std::string path, ReportOutput::Now now = ReportOutput::Clock::now);

 protected:
  void do_begin(const RunInfo& info) override;
  void do_add(const std::vector<Record>& row) override;
  void do_end(const RunInfo& info) override;
  void do_claim() override { output_.claim(); }

 private:
  ReportOutput output_;
  std::string text_;  // header and rows so far
};

}  // namespace distbench
