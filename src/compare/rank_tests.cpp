#include "compare/rank_tests.hpp"

#include "core/measure/normal_quantile.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace distbench::compare {
namespace {

// Ranks of the pooled samples (1-based, ties get their mid-rank); returns the rank sum of `a` and the tie term
// sum(t^3 - t) over tied groups.
struct RankSums {
  double rank_sum_a = 0;
  double tie_term = 0;
  bool ties = false;
};

RankSums rank_sums(std::span<const double> a, std::span<const double> b) {
  std::vector<std::pair<double, bool>> pooled;  // value, from a
  pooled.reserve(a.size() + b.size());
  for (double x : a) pooled.emplace_back(x, true);
  for (double x : b) pooled.emplace_back(x, false);
  std::sort(pooled.begin(), pooled.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  RankSums out;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (std::size_t k = i; k < j; ++k) {
      if (pooled[k].second) out.rank_sum_a += mid_rank;
    }
    if (t > 1) {
      out.ties = true;
      out.tie_term += t * t * t - t;
    }
    i = j;
  }
  return out;
}

// P(U <= u) for U of sizes m and n with no ties: the number of arrangements with U = k, by the recurrence
// f(i, j, k) = f(i - 1, j, k - j) + f(i, j - 1, k) (the largest of the i + j values is from a, beating all j of b,
// or from b), divided by C(m + n, m). A count for U = k needs only counts for U <= k, so only U = 0..u are counted
// (half the table at most: u is the smaller tail). Computed in doubles (counts up to C(200, 100) stay finite).
double exact_cdf(std::size_t m, std::size_t n, std::size_t u) {
  const std::size_t width = std::min(u, m * n) + 1;
  // table[j * width + k]: arrangements of i values of a and j values of b with U = k, for the current i.
  std::vector<double> table((n + 1) * width, 0.0), next((n + 1) * width, 0.0);
  for (std::size_t j = 0; j <= n; ++j) table[j * width] = 1.0;  // i = 0: U = 0
  for (std::size_t i = 1; i <= m; ++i) {
    std::fill(next.begin(), next.end(), 0.0);
    next[0] = 1.0;
    for (std::size_t j = 1; j <= n; ++j) {
      const double* left = &next[(j - 1) * width];  // f(i, j - 1, .)
      const double* up = &table[j * width];         // f(i - 1, j, .)
      double* out = &next[j * width];
      const std::size_t top = std::min(i * j, width - 1);
      for (std::size_t k = 0; k <= top; ++k) out[k] = left[k] + (k >= j ? up[k - j] : 0.0);
    }
    std::swap(table, next);
  }
  double below = 0;
  for (std::size_t k = 0; k < width; ++k) below += table[n * width + k];
  double total = 1;  // C(m + n, m)
  for (std::size_t i = 1; i <= m; ++i) total = total * static_cast<double>(n + i) / static_cast<double>(i);
  return below / total;
}

}  // namespace

double smallest_rank_sum_p(std::size_t n, std::size_t m) {
  if (n == 0 || m == 0) return 1.0;
  double arrangements = 1;  // C(n + m, m), as a double: it overflows to infinity, never wraps
  for (std::size_t i = 1; i <= m; ++i) {
    arrangements = arrangements * static_cast<double>(n + i) / static_cast<double>(i);
  }
  return std::min(1.0, 2 / arrangements);
}

std::size_t min_runs_to_test(double alpha) {
  std::size_t k = 1;
  while (smallest_rank_sum_p(k, k) >= alpha && k < 1000) ++k;
  return k;
}

std::size_t min_baseline_runs(std::size_t candidate_runs, double alpha, std::size_t most) {
  for (std::size_t n = 1; n <= most; ++n) {
    if (smallest_rank_sum_p(n, candidate_runs) < alpha) return n;
  }
  return 0;
}

double mann_whitney_p(std::span<const double> a, std::span<const double> b) {
  const std::size_t m = a.size(), n = b.size();
  if (m == 0 || n == 0) return 1.0;
  const RankSums r = rank_sums(a, b);
  const double md = static_cast<double>(m), nd = static_cast<double>(n);
  const double u = r.rank_sum_a - md * (md + 1) / 2;  // U of a: pairs (a_i, b_j) with a_i > b_j (ties count 1/2)
  const double mean = md * nd / 2;
  if (!r.ties && m * n <= 2500) {
    const auto u_small = static_cast<std::size_t>(std::llround(std::min(u, md * nd - u)));
    return std::min(1.0, 2 * exact_cdf(m, n, u_small));
  }
  const double total = md + nd;
  const double var = md * nd / 12 * ((total + 1) - r.tie_term / (total * (total - 1)));
  if (var <= 0) return 1.0;  // every value equal
  const double z = (std::fabs(u - mean) - 0.5) / std::sqrt(var);
  return std::min(1.0, 2 * (1 - normal_cdf(std::max(z, 0.0))));
}

ShiftEstimate hodges_lehmann_shift(std::span<const double> a, std::span<const double> b, double confidence) {
  ShiftEstimate s;
  if (a.empty() || b.empty()) return s;
  const PairwiseDifferences diffs(a, b);
  const std::uint64_t count = diffs.count();
  s.estimate = count % 2 == 1 ? diffs.kth(count / 2 + 1) : (diffs.kth(count / 2) + diffs.kth(count / 2 + 1)) / 2;
  // Moses: the K-th smallest and K-th largest differences, K from the normal approximation of U's distribution.
  const double md = static_cast<double>(a.size()), nd = static_cast<double>(b.size());
  const double z = normal_quantile(1 - (1 - confidence) / 2);
  const double k = std::floor(md * nd / 2 - z * std::sqrt(md * nd * (md + nd + 1) / 12));
  const auto index = static_cast<std::uint64_t>(std::clamp(k, 1.0, static_cast<double>(count)));  // 1-based
  s.low = diffs.kth(index);
  s.high = diffs.kth(count - index + 1);
  return s;
}

PairwiseDifferences::PairwiseDifferences(std::span<const double> a, std::span<const double> b)
    : a_(a.begin(), a.end()), b_(b.begin(), b.end()) {
  std::sort(a_.begin(), a_.end());
  std::sort(b_.begin(), b_.end());
}

std::uint64_t PairwiseDifferences::count_at_most(double x) const {
  // For one b_j the differences within x come from a suffix of the sorted a_ (a computed difference y - a never
  // grows with a), and that suffix only shrinks as b_j grows: one pass. The differences are computed as everywhere
  // else (y - a), so that the count agrees with kth's answer to the last bit.
  std::uint64_t n = 0;
  std::size_t first = 0;  // the first a_i with b_j - a_i <= x
  for (double y : b_) {
    while (first < a_.size() && y - a_[first] > x) ++first;
    n += a_.size() - first;
  }
  return n;
}

double PairwiseDifferences::largest_at_most(double x) const {
  double best = -std::numeric_limits<double>::infinity();
  for (double y : b_) {
    // the smallest a_i with y - a_i <= x gives this b_j's largest difference within x
    const auto it = std::partition_point(a_.begin(), a_.end(), [y, x](double a) { return y - a > x; });
    if (it != a_.end()) best = std::max(best, y - *it);
  }
  return best;
}

double PairwiseDifferences::kth(std::uint64_t k) const {
  // The smallest value v with at least k differences <= v is the k-th difference: bisect on v, then take the
  // largest difference within it (an exact element, whatever rounding the bisection saw).
  double lo = b_.front() - a_.back();  // the smallest difference: count_at_most(lo) >= 1
  double hi = b_.back() - a_.front();  // the largest: count_at_most(hi) = all
  if (count_at_most(lo) >= k) return lo;
  for (int i = 0; i < 200; ++i) {  // each step halves the interval; doubles run out of room long before 200
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (count_at_most(mid) >= k ? hi : lo) = mid;
  }
  return largest_at_most(hi);
}

}  // namespace distbench::compare
