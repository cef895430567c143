// The CSV report: one line per record, columns from the benchmark's record layout (its parameters, the timing
// summary of each phase, its metrics), rewritten atomically after every row.
#pragma once

#include "core/report/report_output.hpp"
#include "core/report/reporter.hpp"

#include <string>
#include <vector>

namespace distbench {

class CsvReporter final : public Reporter {
 public:
  // "-": standard output, at the end; `now` paces the rewrites (tests pass a clock they drive)
  explicit CsvReporter(std::string path, ReportOutput::Now now = ReportOutput::Clock::now);

 protected:
  void do_begin(const RunInfo& info) override;
  void do_add(const std::vector<Record>& row) override;
  void do_end(const RunInfo& info) override;
  void do_claim() override { output_.claim(); }

 private:
  ReportOutput output_;
  std::string text_;  // the whole file so far
};

// The header line and one record's line (with the newline), as the reporter writes them.
std::string csv_header(const RecordLayout& layout);
std::string csv_line(const RecordLayout& layout, const Record& record);

}  // namespace distbench
