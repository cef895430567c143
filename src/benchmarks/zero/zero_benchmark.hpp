// `distbench zero`: one optimizer step of ZeRO stages 0-3 timed phase by phase (reduce, update, gather; stage 3's
// per-layer gathers), next to what the paper's formulas say each rank holds and sends, what the ranks measured
// (peak resident memory, the network interfaces' bytes), and a prediction from the step's collectives and update
// timed alone in the same run; --check proves every stage bit-identical to a single-rank run first.
#pragma once

#include "benchmarks/zero/plan.hpp"
#include "core/benchmark.hpp"
#include "core/report/per_rank_file.hpp"

#include <memory>

namespace distbench::zero {

class ZeroBenchmark final : public Benchmark {
 public:
  explicit ZeroBenchmark(ZeroPlan plan)
      : plan_(std::move(plan)), per_rank_file_(std::make_unique<PerRankFile>(plan_.per_rank.file)) {}

  void check(World& world) const override;
  RunDescription describe(const RunInfo& info) const override;
  BenchmarkOutcome run(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress) override;
  std::vector<NamedPath> output_files() const override { return per_rank_file_->named(); }
  void mark_unfinished(const std::string& reason) const override { per_rank_file_->abandon(reason); }

 private:
  ZeroPlan plan_;
  std::unique_ptr<PerRankFile> per_rank_file_;  // --per-rank-file (root rank)
};

// The temporary MPI's reductions allocate beside the step: Open MPI's allreduce and reduce-scatter take one of the
// message's size (measured: the peak resident memory of stages 0 and 2 grows by one bucket more than the step holds).
std::uint64_t reduction_temporary_bytes(const std::vector<Segment>& segments, const Precision& p);

// Bytes one rank of `ranks` needs for `stage`: model states and the step's buffers from the formulas, and the
// reduction's temporary (--check's step comes first and holds the same).
std::uint64_t bytes_needed(const ZeroPlan& plan, Stage stage, std::size_t ranks);

}  // namespace distbench::zero
