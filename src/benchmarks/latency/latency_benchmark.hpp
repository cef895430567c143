// `distbench latency`: ping-pong between the ranks of each pair (0-1, 2-3, ...), all pairs at once, over the
// backend's communicator of each pair, as OSU's osu_latency runs it: the pair's first rank sends a message with a
// blocking send and receives the answer with a blocking receive, the second receives and answers (MPI_Send and
// MPI_Recv over MPI), from a send buffer into a separate receive buffer. The one-way latency is half a round trip.
// Every size is verified: after sampling, each direction's message is checked against its sender's data.
#pragma once

#include "benchmarks/latency/plan.hpp"
#include "core/benchmark.hpp"
#include "core/report/per_rank_file.hpp"

#include <memory>

namespace distbench::latency {

class LatencyBenchmark final : public Benchmark {
 public:
  explicit LatencyBenchmark(LatencyPlan plan)
      : plan_(std::move(plan)), per_rank_file_(std::make_unique<PerRankFile>(plan_.per_rank.file)) {}

  void check(World& world) const override;
  RunDescription describe(const RunInfo& info) const override;
  BenchmarkOutcome run(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress) override;
  std::vector<NamedPath> output_files() const override { return per_rank_file_->named(); }
  void mark_unfinished(const std::string& reason) const override { per_rank_file_->abandon(reason); }

 private:
  LatencyPlan plan_;
  std::unique_ptr<PerRankFile> per_rank_file_;  // --per-rank-file (root rank)
};

// Throws usage_error unless the ranks pair up (an even number, at least 2).
void check_pairs(int world_size);

}  // namespace distbench::latency
