// osu_latency's iteration rule (OSU Micro-Benchmarks' osu_util.h), which `distbench latency` follows unless told
// otherwise: a message of up to 8 KiB gets 100 untimed round trips and then 10000 timed ones, a larger one 10 and
// 1000. How many round trips are timed changes the figure, not only its noise: the first round trips after the
// barrier run slower, so a short run reads above osu_latency at a size where a run of its count does not
// (docs/latency.md).
#pragma once

#include <cstdint>

namespace distbench::latency {

struct RoundTrips {
  int warmup = 0;           // untimed, before any timed one
  std::uint64_t timed = 0;  // timed, over all samples
};

inline constexpr std::uint64_t kOsuLargeMessageFrom = 8192;  // a message is large above this many bytes
// The round trips osu_latency makes for a message of `bytes`.
RoundTrips osu_latency_round_trips(std::uint64_t bytes);

}  // namespace distbench::latency
