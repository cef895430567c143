// The human table on stdout, in the shape nccl-tests users read: a "# " header describing the run, one row per
// (size, dtype, op) with time / algbw / busbw / #wrong for each placement, and a footer with the average bus
// bandwidth and the wrong-element count.
#pragma once

#include "core/report/reporter.hpp"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace distbench {

class ConsoleReporter final : public Reporter {
 public:
  explicit ConsoleReporter(std::ostream& out);

 protected:
  void do_begin(const RunInfo& info, const SweepPlan& plan) override;
  void do_add(const std::vector<CaseResult>& results) override;
  void do_end(const RunInfo& info) override;

 private:
  std::ostream& out_;
  SweepPlan plan_;
  // Footer tallies.
  std::size_t measured_ = 0;
  double busbw_sum_ = 0;
  std::size_t checked_ = 0;
  std::int64_t wrong_ = 0;
  std::size_t noise_missed_ = 0;
  std::vector<std::pair<std::string, std::size_t>> skip_reasons_;  // reason, how many results
};

}  // namespace distbench
