#include "benchmarks/health/link_plan.hpp"

#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace distbench::health {

LinkPlan plan_links(int nodes, LinkMode mode, std::uint64_t seed, double round_seconds) {
  LinkPlan p;
  p.nodes = nodes;
  p.schedule = link_schedule(nodes, mode, seed);
  const auto n = static_cast<std::size_t>(std::max(nodes, 0));
  p.every_pair = n < 2 ? 0 : n * (n - 1) / 2;
  p.pair_bound = n < 2 ? 0 : 4.0 * static_cast<double>(n) * std::log2(static_cast<double>(n));
  auto d = degrees(nodes, p.schedule.rounds);
  if (!d.empty()) {
    std::sort(d.begin(), d.end());
    p.degree_min = d.front();
    p.degree_median = d[d.size() / 2];
    p.degree_max = d.back();
  }
  p.round_seconds = round_seconds;
  return p;
}

std::vector<std::string> link_plan_lines(const LinkPlan& p, bool list_rounds) {
  const std::size_t every_rounds = p.nodes < 2 ? 0 : static_cast<std::size_t>(p.nodes % 2 == 0 ? p.nodes - 1 : p.nodes);
  std::vector<std::string> lines{
      fmt::format("link schedule for {}: {}", plural(static_cast<std::size_t>(p.nodes), "node", "nodes"),
                  schedule_words(p.schedule)),
      fmt::format("pairs: {} (every pair: {}; 4 n log2 n: {:.0f})", p.schedule.pairs(), p.every_pair, p.pair_bound),
      fmt::format("rounds: {} of disjoint pairs, run side by side (every pair: {})", p.schedule.rounds.size(),
                  every_rounds),
      fmt::format("pairs per node: min {}, median {}, max {}", p.degree_min, p.degree_median, p.degree_max),
      fmt::format("predicted link phase: {} x {:.3g} s = {:.0f} s (the per-round cost; --round-seconds)",
                  plural(p.schedule.rounds.size(), "round", "rounds"), p.round_seconds, p.predicted_s())};
  if (list_rounds) {
    for (std::size_t r = 0; r < p.schedule.rounds.size(); ++r) {
      std::string line = fmt::format("round {}:", r + 1);
      for (const auto& [a, b] : p.schedule.rounds[r]) line += fmt::format(" {}-{}", a, b);
      lines.push_back(line);
    }
  }
  return lines;
}

}  // namespace distbench::health
