// The CSV report: a flat table, one line per CaseResult after a header line (columns in reports/SCHEMA.md). A view
// of the JSON report for spreadsheets and plotting; rewritten atomically after every add().
#pragma once

#include "core/report/reporter.hpp"

#include <string>
#include <vector>

namespace distbench {

class CsvReporter final : public Reporter {
 public:
  explicit CsvReporter(std::string path);

 protected:
  void do_begin(const RunInfo& info, const SweepPlan& plan) override;
  void do_add(const std::vector<CaseResult>& results) override;
  void do_end(const RunInfo& info) override;

 private:
  std::string path_;
  std::string text_;  // the whole file so far
};

}  // namespace distbench
