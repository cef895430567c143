// `distbench tp`: TorchShard's tensor parallelism measured. The world is cut into model-parallel groups of
// --group-size consecutive ranks, all working at once. Either the four operations (scatter, gather, reduce, copy)
// along each dim, forward and backward, timed with the underlying collective's algbw/busbw and verified exactly;
// or (--layer) the column- and row-parallel linear layers and Megatron's MLP block, forward + backward, with their
// communication time and its share of the step, checked against the single-rank layer.
#pragma once

#include "benchmarks/tp/plan.hpp"
#include "core/benchmark.hpp"

namespace distbench::tp {

class TpBenchmark final : public Benchmark {
 public:
  explicit TpBenchmark(TpPlan plan) : plan_(std::move(plan)) {}

  void check(World& world) const override;
  RunDescription describe(const RunInfo& info) const override;
  BenchmarkOutcome run(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress) override;

 private:
  int group_size(int world_size) const { return plan_.group_size > 0 ? plan_.group_size : world_size; }
  BenchmarkOutcome run_ops(World& world, Communicator& group, DenseMath& math, Watchdog& watchdog, Reporter* reporter,
                           const ProgressFn& progress);
  BenchmarkOutcome run_layers(World& world, Communicator& group, DenseMath& math, Watchdog& watchdog,
                              Reporter* reporter, const ProgressFn& progress);

  TpPlan plan_;
};

}  // namespace distbench::tp
