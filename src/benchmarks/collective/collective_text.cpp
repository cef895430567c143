#include "benchmarks/collective/collective_text.hpp"

#include "core/report/text.hpp"

#include <fmt/format.h>

namespace distbench::collective {

std::string group_text(const SweepPlan& plan, int world_size) {
  if (plan.group_size <= 0 || plan.group_size >= world_size) return "world (1 group)";
  const auto groups = static_cast<std::size_t>(world_size / plan.group_size);
  return fmt::format("group-size {} ({} of {} ranks)", plan.group_size, plural(groups, "group", "groups"),
                     plan.group_size);
}

std::string sweep_text(const std::vector<std::uint64_t>& sizes) {
  if (sizes.empty()) return "no sizes";
  return fmt::format("{} .. {} B, {}", sizes.front(), sizes.back(), plural(sizes.size(), "size", "sizes"));
}

std::string_view average_text(RankAverage a) {
  switch (a) {
    case RankAverage::rank0: return "rank 0";
    case RankAverage::avg: return "mean over ranks";
    case RankAverage::min: return "fastest rank";
    case RankAverage::max: return "slowest rank";
  }
  return "?";
}

}  // namespace distbench::collective
