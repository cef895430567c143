// The CSV report: a flat table, one line per CaseResult after a header line (columns in reports/SCHEMA.md). A view
// of the JSON report for spreadsheets and plotting; rewritten atomically after every add().
#pragma once

#include "core/report/reporter.hpp"

#include <mutex>
#include <string>
#include <vector>

namespace distbench {

class CsvReporter final : public Reporter {
 public:
  explicit CsvReporter(std::string path);

 protected:
  // Each hook locks, as JsonReporter's do; the first end() is final and an end() before begin() writes nothing.
  void do_begin(const RunInfo& info, const SweepPlan& plan) override;
  void do_add(const std::vector<CaseResult>& results) override;
  void do_end(const RunInfo& info) override;

 private:
  std::mutex mutex_;
  std::string path_;
  bool begun_ = false;
  bool ended_ = false;
  std::string text_;  // the whole file so far
};

}  // namespace distbench
