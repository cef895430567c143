// How many operations the peers whose timing distbench reproduces (--timing osu, --timing imb) time at a size, and
// how many they run untimed first. Both time one call at a time on the host clock with a barrier after each (not
// timed), average per rank, then over ranks; they differ in these counts.
#pragma once

#include "benchmarks/collective/plan.hpp"

#include <cstdint>

namespace distbench::collective {

struct PeerCounts {
  int iterations = 0;  // timed calls
  int warmup = 0;      // untimed calls before them
};

// OSU Micro-Benchmarks 7.x, blocking collectives: 1000 calls after 100 untimed up to 8 KiB, 100 after 10 above.
PeerCounts osu_counts(std::uint64_t bytes);

// Intel MPI Benchmarks (IMB-MPI1): min(1000, 40 MiB / size) calls, at least 1 (1000 at size 0); a tenth of them
// untimed first, but at least min(10, that count).
PeerCounts imb_counts(std::uint64_t bytes);

// `counts` with -n and -w in their place where they were given.
PeerCounts with_given_counts(const SweepPlan& plan, PeerCounts counts);

}  // namespace distbench::collective
