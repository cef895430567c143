#include "benchmarks/latency/osu_counts.hpp"

namespace distbench::latency {

RoundTrips osu_latency_round_trips(std::uint64_t bytes) {
  if (bytes > kOsuLargeMessageFrom) return {10, 1000};
  return {100, 10000};
}

}  // namespace distbench::latency
