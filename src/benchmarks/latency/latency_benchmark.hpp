// `distbench latency`: ping-pong between the ranks of each pair (0-1, 2-3, ...), all pairs at once, over the
// backend's communicator of each pair, as OSU's osu_latency runs it: the pair's first rank sends a message with a
// blocking send and receives the answer with a blocking receive, the second receives and answers (MPI_Send and
// MPI_Recv over MPI), from a send buffer into a separate receive buffer. The one-way latency is half a round trip.
// Every size is verified: after sampling, each direction's message is checked against its sender's data.
#pragma once

#include "core/benchmark.hpp"
#include "core/stopping.hpp"

#include <cstdint>
#include <vector>

namespace distbench {

struct LatencyPlan {
  std::vector<std::uint64_t> sizes;  // message bytes
  int warmup_iters = 5;
  StoppingRule stopping;
  bool check = true;
  double timeout_s = 300.0;
};

class LatencyBenchmark final : public Benchmark {
 public:
  explicit LatencyBenchmark(LatencyPlan plan) : plan_(std::move(plan)) {}

  void check(World& world) const override;
  RunDescription describe(const RunInfo& info) const override;
  BenchmarkOutcome run(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress) override;

 private:
  LatencyPlan plan_;
};

// Throws usage_error unless the ranks pair up (an even number, at least 2).
void check_pairs(int world_size);
RecordLayout latency_record_layout();
TableLayout latency_table();
std::vector<SummaryItem> latency_summary(const std::vector<Record>& records);
// The record of one size from the pairs' one-way samples (seconds; by_rank[r] for world rank r).
Record latency_record(std::uint64_t bytes, const std::string& backend, const std::vector<std::vector<double>>& by_rank,
                      int ops_per_sample, bool noise_target_met, std::int64_t wrong,
                      const std::vector<std::string>& hosts);

}  // namespace distbench
