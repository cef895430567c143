// `distbench <collective>` as a benchmark for the runner: the size sweep of one collective (sweep.hpp), its
// records (collective_record.hpp), nccl-tests' table and the reports' config and summary.
#pragma once

#include "benchmarks/collective/plan.hpp"
#include "core/benchmark.hpp"

#include <cstdint>

namespace distbench::collective {

class CollectiveBenchmark final : public Benchmark {
 public:
  explicit CollectiveBenchmark(SweepPlan plan) : plan_(std::move(plan)) {}

  void check(World& world) const override;
  RunDescription describe(const RunInfo& info) const override;
  BenchmarkOutcome run(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress) override;

 private:
  SweepPlan plan_;
};

// The parts of describe(), each on its own (unit-tested).
nlohmann::ordered_json collective_config(const SweepPlan& plan, const std::string& backend);
TableLayout collective_table(const SweepPlan& plan);
std::vector<SummaryItem> collective_summary(const std::vector<Record>& records);

}  // namespace distbench::collective
