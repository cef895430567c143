// `distbench health`: a cluster check in bounded phases (per rank, clocks, per node, whole job, pairwise links,
// isolation of the node behind a slow link, stragglers) that ends with a verdict per node and the Nagios exit
// code: 0 healthy, 1 degraded, 2 failed, 3 unknown.
#pragma once

#include "benchmarks/health/plan.hpp"
#include "core/benchmark.hpp"

namespace distbench::health {

class HealthBenchmark final : public Benchmark {
 public:
  explicit HealthBenchmark(HealthPlan plan) : plan_(std::move(plan)) {}

  void check(World& world) const override;
  RunDescription describe(const RunInfo& info) const override;
  BenchmarkOutcome run(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress) override;
  std::vector<NamedPath> output_files() const override;
  std::vector<NamedPath> input_files() const override;
  void mark_unfinished(const std::string& reason) const override;
  void note_startup(const std::vector<StartupRank>& ranks) override { startup_ = ranks; }

 private:
  HealthPlan plan_;
  std::vector<StartupRank> startup_;  // the root's: every rank's start-up, judged before the first phase
};

}  // namespace distbench::health
