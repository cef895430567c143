// One timed phase of every rank reduced onto the root (core/measure/phase_stats.hpp) without any rank's samples
// travelling whole: each rank's mean is gathered (one number per rank) and each sample is aggregated across the ranks
// as -a says along a tree (core/comm/tree_reduce.hpp). The root receives O(ranks + samples x log ranks) numbers for
// a phase, where gathering every rank's samples took O(ranks x samples).
#pragma once

#include "core/comm/connector.hpp"
#include "core/measure/phase_stats.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace distbench {

// Collective over `c`: every rank passes its own samples of the phase (the same number on every rank). The root
// gets what reduce_phase makes of every rank's samples (up to the rounding of the sum, added in another order);
// other ranks an empty phase. Bounded by `step` (the gather) and `deadline` (the tree's messages).
ReducedPhase reduce_phase_over_ranks(Connector& c, std::string name, const std::vector<double>& mine,
                                     RankAverage average, int root, const ArmedStep& step,
                                     std::chrono::steady_clock::time_point deadline);

}  // namespace distbench
