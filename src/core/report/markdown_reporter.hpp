// The Markdown report (--md FILE): the table a pull-request comment or a wiki page wants, the same rows as the
// console table with a one-paragraph header and a footer; rewritten atomically after every add().
#pragma once

#include "core/report/reporter.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace distbench {

class MarkdownReporter final : public Reporter {
 public:
  explicit MarkdownReporter(std::string path);

 protected:
  void do_begin(const RunInfo& info, const SweepPlan& plan) override;
  void do_add(const std::vector<CaseResult>& results) override;
  void do_end(const RunInfo& info) override;

 private:
  std::string path_;
  SweepPlan plan_;
  std::string text_;  // header and rows so far
  std::size_t measured_ = 0;
  double busbw_sum_ = 0;
  std::size_t checked_ = 0;
  std::int64_t wrong_ = 0;
};

}  // namespace distbench
