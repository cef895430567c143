#include "core/measure/rank_summary.hpp"

#include "core/measure/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace distbench {

RankDistribution distribution_over_ranks(std::span<const double> values, std::span<const int> ranks,
                                         std::span<const std::string> hosts, std::size_t ends) {
  std::vector<std::size_t> order;
  order.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isnan(values[i])) order.push_back(i);
  RankDistribution d;
  d.ranks = order.size();
  if (order.empty()) return d;
  const auto rank_of = [&](std::size_t i) { return i < ranks.size() ? ranks[i] : static_cast<int>(i); };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return values[a] != values[b] ? values[a] < values[b] : rank_of(a) < rank_of(b);
  });
  std::vector<double> sorted(order.size());
  std::transform(order.begin(), order.end(), sorted.begin(), [&](std::size_t i) { return values[i]; });
  d.min = sorted.front();
  d.max = sorted.back();
  d.p05 = percentile_sorted(sorted, 5);
  d.p25 = percentile_sorted(sorted, 25);
  d.median = percentile_sorted(sorted, 50);
  d.p75 = percentile_sorted(sorted, 75);
  d.p95 = percentile_sorted(sorted, 95);
  d.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  const auto at = [&](std::size_t i) {
    return RankAtEnd{rank_of(i), i < hosts.size() ? hosts[i] : std::string(), values[i]};
  };
  const std::size_t n = std::min(ends, order.size());
  for (std::size_t k = 0; k < n; ++k) d.lowest.push_back(at(order[k]));
  // the highest end, largest first; among equal values the lower rank first, as at the lowest end
  std::vector<std::size_t> top(order.end() - static_cast<std::ptrdiff_t>(n), order.end());
  std::stable_sort(top.begin(), top.end(), [&](std::size_t a, std::size_t b) {
    return values[a] != values[b] ? values[a] > values[b] : rank_of(a) < rank_of(b);
  });
  for (std::size_t i : top) d.highest.push_back(at(i));
  return d;
}

RankDistribution distribution_over_ranks(std::span<const double> values, std::span<const std::string> hosts,
                                         std::size_t ends) {
  return distribution_over_ranks(values, std::span<const int>(), hosts, ends);
}

}  // namespace distbench
