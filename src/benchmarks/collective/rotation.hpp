// nccl-tests' rotation of buffer positions, for its timing method (--timing nccl-tests).
#pragma once

#include "benchmarks/collective/measure.hpp"

#include <vector>

namespace distbench::collective {

// The calls of a timed block: the k-th runs k (mod steps) footprints further into the buffers, `steps` being how
// many footprints of this case the buffers (allocated for the sweep's largest case) hold, so that no operation finds
// its data in a cache the previous one warmed. As in nccl-tests, the largest case has a single position. At most
// `ops` distinct calls (the block's length); in-place calls keep their in-place pair of positions.
std::vector<CollectiveCall> rotated_calls(const CaseSetup& setup, int ops);

}  // namespace distbench::collective
