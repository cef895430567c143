// `distbench train`: data-parallel training of a real MLP (benchmarks/train), timed step by step with overlap on and
// off: step time, compute alone, communication alone, the communication the step exposes and how much of it the
// overlap hid, throughput and loss; --check compares the trained parameters with one rank trained on the global
// batches.
#pragma once

#include "benchmarks/train/data_parallel.hpp"
#include "benchmarks/train/plan.hpp"
#include "core/benchmark.hpp"
#include "core/report/per_rank_file.hpp"

#include <memory>

namespace distbench::train {

class TrainBenchmark final : public Benchmark {
 public:
  explicit TrainBenchmark(TrainPlan plan)
      : plan_(std::move(plan)), per_rank_file_(std::make_unique<PerRankFile>(plan_.per_rank.file)) {}

  void check(World& world) const override;
  RunDescription describe(const RunInfo& info) const override;
  BenchmarkOutcome run(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress) override;
  std::vector<NamedPath> output_files() const override;
  void mark_unfinished(const std::string& reason) const override { per_rank_file_->abandon(reason); }

 private:
  TrainPlan plan_;
  std::unique_ptr<PerRankFile> per_rank_file_;  // --per-rank-file (root rank)
};

// The relative difference |a - b| / max(|a|, |b|, 1e-2) of two parameters, its largest over two parameter vectors,
// and the tolerance the check holds it to: 1e-3 for float32 gradients (sums in another order, through a few steps);
// 1e-2 for bfloat16 ones, whose rounding alone moves each gradient by up to 2^-9 (8 significant bits).
double relative_difference(float a, float b);
double largest_relative_difference(const std::vector<float>& a, const std::vector<float>& b);
inline constexpr double check_tolerance(DType wire) { return wire == DType::bfloat16 ? 1e-2 : 1e-3; }

}  // namespace distbench::train
