// Distribution-free statistics for comparing two sets of timing samples: the two-sided Mann-Whitney U test and the
// Hodges-Lehmann estimate of a shift with its Moses confidence interval. Both assume nothing about the shape of the
// distributions, which matters for timings: skewed, heavy-tailed, with preempted outliers.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace distbench::compare {

// The smallest two-sided p the exact rank-sum test can give with n and m values a side: two fully separated sets,
// 2 / C(n + m, n) (1 when a side is empty). A test of n baseline runs against m candidate runs can reject at alpha
// only when this is below alpha.
double smallest_rank_sum_p(std::size_t n, std::size_t m);

// The fewest values a side whose test can reject at `alpha` (5 at 0.01: 2 / C(10, 5) = 0.0079; 4 at 0.05).
std::size_t min_runs_to_test(double alpha);

// The fewest baseline values that can reject at `alpha` against `candidate_runs` (9 against 3 at 0.01:
// 2 / C(12, 3) = 0.0091); 0 when more than `most` would be needed.
std::size_t min_baseline_runs(std::size_t candidate_runs, double alpha, std::size_t most);

// Two-sided p-value that `a` and `b` come from the same distribution. Exact (by counting arrangements) when there
// are no ties and n_a * n_b <= 2500; otherwise the normal approximation with the tie correction and a continuity
// correction. 1 when either side is empty.
double mann_whitney_p(std::span<const double> a, std::span<const double> b);

struct ShiftEstimate {
  double estimate = 0;       // the median of all pairwise differences b_j - a_i (Hodges-Lehmann)
  double low = 0, high = 0;  // its distribution-free confidence interval (Moses), at the given confidence level
};

// The shift from `a` to `b` (b - a) with a `confidence` (e.g. 0.99) interval. Memory O(m + n), time
// O((m + n) log(m + n) + (m + n) * 64): the m * n differences are never formed (PairwiseDifferences).
ShiftEstimate hodges_lehmann_shift(std::span<const double> a, std::span<const double> b, double confidence);

// The m * n differences b_j - a_i of two samples, kept implicit: the k-th smallest found by bisection on its value,
// counting the differences at most a value in one pass over both sorted samples.
class PairwiseDifferences {
 public:
  PairwiseDifferences(std::span<const double> a, std::span<const double> b);  // neither empty
  std::uint64_t count() const { return static_cast<std::uint64_t>(a_.size()) * b_.size(); }
  // The k-th smallest difference, 1 <= k <= count().
  double kth(std::uint64_t k) const;

 private:
  std::uint64_t count_at_most(double x) const;
  double largest_at_most(double x) const;
  std::vector<double> a_, b_;
};

}  // namespace distbench::compare
