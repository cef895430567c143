// The CSV report: one line per record, columns from the benchmark's record layout (its parameters, the timing
// summary of each phase, its metrics), rewritten atomically after every row.
#pragma once

#include "core/report/file_reporter.hpp"

#include <string>
#include <vector>

namespace distbench {

class CsvReporter final : public FileReporter {
 public:
  using FileReporter::FileReporter;

 protected:
  void on_begin(const RunInfo& info) override;
  void on_add(const std::vector<Record>& row) override;
  std::string text() const override { return text_; }

 private:
  std::string text_;  // the whole file so far
};

// The header line and one record's line (with the newline), as the reporter writes them.
std::string csv_header(const RecordLayout& layout);
std::string csv_line(const RecordLayout& layout, const Record& record);

}  // namespace distbench
