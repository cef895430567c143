// `distbench health --plan-links N`: the link schedule a check would run on N nodes, without running anything: its
// pairs, rounds and pairs per node, and the link phase's time predicted from a per-round cost.
#pragma once

#include "benchmarks/health/schedule.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace distbench::health {

// The link phase's cost per round of disjoint pairs, as measured on the 26-host namespace cluster (one rank per host,
// 2 cores shared by the 13 pairs of a round, default sizes; docs/health.md, 'Scale'): 0.37 to 0.44 s (14 rounds of
// the scaled schedule in 5.2 to 6.2 s, 25 of every pair in 10.6 s). Each pair takes at least 0.2 s (each direction
// for at least 0.1 s), whatever the machine.
inline constexpr double kMeasuredRoundSeconds = 0.45;

struct LinkPlan {
  int nodes = 0;
  LinkSchedule schedule;
  std::size_t every_pair = 0;  // n (n - 1) / 2
  double pair_bound = 0;       // 4 n log2 n: what the scaled schedule must stay within
  int degree_min = 0, degree_median = 0, degree_max = 0;
  double round_seconds = kMeasuredRoundSeconds;
  double predicted_s() const { return static_cast<double>(schedule.rounds.size()) * round_seconds; }
};

LinkPlan plan_links(int nodes, LinkMode mode, std::uint64_t seed, double round_seconds = kMeasuredRoundSeconds);
// The plan in words, one line each; every round's pairs (node indices from 0) too when `list_rounds`.
std::vector<std::string> link_plan_lines(const LinkPlan& plan, bool list_rounds);

}  // namespace distbench::health
