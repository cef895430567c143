// A Markdown view of the run, the form a pull-request comment wants: a heading, one line on what ran, the table
// (the benchmark's columns; each group's columns prefixed by its name when there are several), and the summary.
// Rewritten atomically after every row, like the other report files.
#pragma once

#include "core/report/file_reporter.hpp"

#include <string>
#include <vector>

namespace distbench {

class MarkdownReporter final : public FileReporter {
 public:
  using FileReporter::FileReporter;

 protected:
  void on_begin(const RunInfo& info) override;
  void on_add(const std::vector<Record>& row) override;
  void on_end(const RunInfo& info) override;
  std::string text() const override { return text_ + footer_; }

 private:
  std::string text_;    // header and rows so far
  std::string footer_;  // once the run ended
};

}  // namespace distbench
