// One figure over many ranks, kept small: its quantiles and the few ranks at either end, named with their hosts.
// What a report keeps of a per-rank figure when the job is too large to list every rank (the size of this summary
// does not grow with the ranks), and what the start-up record and health name as the slowest ranks.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace distbench {

// A rank at one end of the distribution.
struct RankAtEnd {
  int rank = 0;
  std::string host;
  double value = 0;
};

struct RankDistribution {
  std::size_t ranks = 0;  // ranks with a value (NaN values are left out)
  double min = 0, p05 = 0, p25 = 0, median = 0, p75 = 0, p95 = 0, max = 0, mean = 0;
  std::vector<RankAtEnd> highest;  // largest values first (for a time: the slowest ranks)
  std::vector<RankAtEnd> lowest;   // smallest values first
};

// `values[i]` is rank `ranks[i]`'s figure on `hosts[i]` (hosts may be shorter: blank hosts). Keeps `ends` ranks at
// each end (ties broken by the lower rank). Percentiles interpolate linearly between closest ranks (numpy's
// default), as every percentile of the tool does. O(n log n) time, O(n) transient memory, O(ends) kept.
RankDistribution distribution_over_ranks(std::span<const double> values, std::span<const int> ranks,
                                         std::span<const std::string> hosts, std::size_t ends = 3);

// The same with ranks 0 .. n-1.
RankDistribution distribution_over_ranks(std::span<const double> values, std::span<const std::string> hosts,
                                         std::size_t ends = 3);

}  // namespace distbench
