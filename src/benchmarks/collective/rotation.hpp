// nccl-tests' rotation of buffer positions, for its timing method (--timing nccl-tests).
#pragma once

#include "benchmarks/collective/measure.hpp"
#include "benchmarks/collective/plan.hpp"

#include <vector>

namespace distbench::collective {

// The calls of a timed block: the k-th runs k (mod steps) footprints further into the buffers, `steps` being how
// many footprints of this case the buffers (allocated for the sweep's largest case) hold, so that no operation finds
// its data in a cache the previous one warmed. As in nccl-tests, the largest case has a single position. At most
// `ops` distinct calls (the block's length); in-place calls keep their in-place pair of positions.
std::vector<CollectiveCall> rotated_calls(const CaseSetup& setup, int ops);

// How many distinct calls a timed block of `plan` runs: -n x -m. With -G the backend captures that series once and
// replays it -G times (as nccl-tests captures its -n calls), so a block of -n x -m x -G operations rotates through
// -n x -m positions at most; more would never run and read back as wrong (GPU run 9: 8 B to 2 MiB with -G 10).
int distinct_calls_per_block(const SweepPlan& plan);

}  // namespace distbench::collective
