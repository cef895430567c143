#include "compare/signed_rank.hpp"

#include "core/measure/normal_quantile.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace distbench::compare {
namespace {

// Above this many differences the exact distribution is replaced by the normal approximation (2^60 arrangements
// are still exact in a double's 53 bits of mantissa for the counts that matter; the approximation is good by then).
constexpr std::size_t kExactUpTo = 60;

// P(T+ <= t) for every t = 0 .. n(n+1)/2 under the null hypothesis: the number of subsets of {1..n} summing to t,
// over 2^n.
std::vector<double> signed_rank_cdf(std::size_t n) {
  const std::size_t top = n * (n + 1) / 2;
  std::vector<double> ways(top + 1, 0.0);
  ways[0] = 1;
  for (std::size_t k = 1; k <= n; ++k) {
    for (std::size_t t = top; t >= k; --t) ways[t] += ways[t - k];
  }
  const double all = std::ldexp(1.0, static_cast<int>(n));
  double sum = 0;
  for (double& w : ways) {
    sum += w;
    w = std::min(1.0, sum / all);
  }
  return ways;
}

double normal_upper_tail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace

double smallest_signed_rank_p(std::size_t n) {
  return n == 0 ? 1.0 : std::min(1.0, 2 * std::ldexp(1.0, -static_cast<int>(n)));
}

std::size_t min_pairs_to_test(double alpha) {
  std::size_t n = 1;
  while (smallest_signed_rank_p(n) >= alpha && n < 1000) ++n;
  return n;
}

double signed_rank_p(std::span<const double> differences) {
  std::vector<double> d;
  for (double x : differences) {
    if (x != 0) d.push_back(x);
  }
  const std::size_t n = d.size();
  if (n == 0) return 1.0;
  std::sort(d.begin(), d.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
  // Ranks of |d|, ties sharing their mean rank.
  double t_plus = 0, tie_term = 0;
  bool ties = false;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && std::fabs(d[j + 1]) == std::fabs(d[i])) ++j;
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j + 1)) / 2;
    const double tied = static_cast<double>(j - i + 1);
    if (j > i) ties = true;
    tie_term += tied * tied * tied - tied;
    for (std::size_t k = i; k <= j; ++k) {
      if (d[k] > 0) t_plus += rank;
    }
    i = j + 1;
  }
  const double nn = static_cast<double>(n);
  if (!ties && n <= kExactUpTo) {
    const auto cdf = signed_rank_cdf(n);
    const auto t = static_cast<std::size_t>(std::llround(t_plus));
    const double lower = cdf[t];                           // P(T+ <= t)
    const double upper = t == 0 ? 1.0 : 1.0 - cdf[t - 1];  // P(T+ >= t)
    return std::min(1.0, 2 * std::min(lower, upper));
  }
  const double mean = nn * (nn + 1) / 4;
  const double var = nn * (nn + 1) * (2 * nn + 1) / 24 - tie_term / 48;
  if (var <= 0) return 1.0;
  const double z = (std::fabs(t_plus - mean) - 0.5) / std::sqrt(var);
  return std::min(1.0, 2 * normal_upper_tail(std::max(0.0, z)));
}

CentreEstimate hodges_lehmann_centre(std::span<const double> differences, double confidence) {
  std::vector<double> walsh;
  const std::size_t n = differences.size();
  walsh.reserve(n * (n + 1) / 2);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i; j < n; ++j) walsh.push_back((differences[i] + differences[j]) / 2);
  }
  std::sort(walsh.begin(), walsh.end());
  const std::size_t m = walsh.size();
  CentreEstimate out;
  out.estimate = m % 2 == 1 ? walsh[m / 2] : (walsh[m / 2 - 1] + walsh[m / 2]) / 2;
  // The interval runs from the k-th to the (m + 1 - k)-th Walsh average, k - 1 being the largest t with
  // P(T+ <= t) <= (1 - confidence) / 2.
  const double tail = (1 - confidence) / 2;
  std::size_t k = 0;  // 0: no t qualifies, the whole range
  if (n <= kExactUpTo) {
    const auto cdf = signed_rank_cdf(n);
    while (k < cdf.size() && cdf[k] <= tail) ++k;
  } else {
    const double nn = static_cast<double>(n);
    const double c =
        static_cast<double>(m) / 2 - normal_quantile(1 - tail) * std::sqrt(nn * (nn + 1) * (2 * nn + 1) / 24);
    k = c > 0 ? static_cast<std::size_t>(std::floor(c)) : 0;
  }
  if (k == 0 || k > m / 2) {
    out.low = walsh.front();
    out.high = walsh.back();
  } else {
    out.low = walsh[k - 1];
    out.high = walsh[m - k];
  }
  return out;
}

}  // namespace distbench::compare
