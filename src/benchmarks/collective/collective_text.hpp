// The collective sweep's words in the report headers.
#pragma once

#include "benchmarks/collective/plan.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::collective {

// "world (1 group)", "group-size 2 (3 groups of 2 ranks)".
std::string group_text(const SweepPlan& plan, int world_size);
// "8 .. 67108864 B, 24 sizes".
std::string sweep_text(const std::vector<std::uint64_t>& sizes);
// "mean over ranks", ...
std::string_view average_text(RankAverage a);

}  // namespace distbench::collective
