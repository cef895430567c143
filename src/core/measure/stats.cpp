#include "core/measure/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace distbench {
namespace {

// Scale that makes the MAD a consistent estimator of the standard deviation for normal data.
constexpr double kMadToSigma = 1.4826;
// Samples farther than this many scaled MADs from the median are outliers.
constexpr double kOutlierMads = 5.0;

double mean_of(std::span<const double> xs) {
  double sum = 0;
  for (double x : xs) sum += x;
  return sum / static_cast<double>(xs.size());
}

// Sample standard deviation (n-1), two-pass; 0 for fewer than 2 samples.
double stddev_of(std::span<const double> xs, double mean) {
  if (xs.size() < 2) return 0;
  double squares = 0;
  for (double x : xs) squares += (x - mean) * (x - mean);
  return std::sqrt(squares / static_cast<double>(xs.size() - 1));
}

double noise_of(double stddev, double mean, std::size_t n) {
  if (n < 2 || mean == 0) return 0;
  return stddev / mean * 100.0;
}

// Order-statistic index (0-based) of the lower end of the median's 95% interval: the largest j - 1 such that
// P(B <= j - 1) <= 2.5% for B ~ Binomial(n, 1/2); nullopt-like -1 when even j = 1 does not reach 95%. The terms
// are carried as logarithms: P(B = 0) = 2^-n underflows to 0 for n > 1074 samples, and a zero term would never grow.
long lower_order_index(std::size_t n) {
  double cumulative = 0;                                     // P(B <= k)
  double log_term = static_cast<double>(n) * std::log(0.5);  // log P(B = 0)
  long index = -1;
  for (std::size_t k = 0; k < n / 2; ++k) {
    cumulative += std::exp(log_term);
    if (cumulative > 0.025) break;
    index = static_cast<long>(k);  // x(k+1) .. x(n-k) covers at least 95%
    log_term += std::log(static_cast<double>(n - k)) - std::log(static_cast<double>(k + 1));
  }
  return index;
}

}  // namespace

MedianInterval median_interval_sorted(std::span<const double> sorted) {
  if (sorted.empty()) return {};
  const long k = lower_order_index(sorted.size());
  if (k < 0) return {sorted.front(), sorted.back()};
  const auto low = static_cast<std::size_t>(k);
  return {sorted[low], sorted[sorted.size() - 1 - low]};
}

double median_ci_percent(std::span<const double> samples) {
  if (samples.size() < 2) return 0;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const double median = percentile_sorted(sorted, 50);
  if (median == 0) return 0;
  const auto interval = median_interval_sorted(sorted);
  return (interval.high - interval.low) / 2.0 / median * 100.0;
}

double percentile_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) return 0;
  const double position = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  if (below + 1 >= sorted.size()) return sorted.back();
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[below + 1] - sorted[below]);
}

double percentile(std::vector<double> samples, double q) {
  if (samples.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(samples.begin(), samples.end());
  return percentile_sorted(samples, q);
}

std::vector<double> slowest_per_sample(const std::vector<std::vector<double>>& by_rank) {
  std::vector<double> out;
  for (const auto& rank : by_rank) {
    if (out.size() < rank.size()) out.resize(rank.size(), -std::numeric_limits<double>::infinity());
    for (std::size_t i = 0; i < rank.size(); ++i) out[i] = std::max(out[i], rank[i]);
  }
  return out;
}

double interquartile_mean_sorted(std::span<const double> sorted) {
  if (sorted.empty()) return 0;
  const std::size_t cut = (sorted.size() + 1) / 4;
  return mean_of(sorted.subspan(cut, sorted.size() - 2 * cut));
}

double relative_noise(std::span<const double> samples) {
  if (samples.size() < 2) return 0;
  const double mean = mean_of(samples);
  return noise_of(stddev_of(samples, mean), mean, samples.size());
}

Summary summarize(std::span<const double> samples) {
  Summary s;
  if (samples.empty()) return s;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());

  s.samples = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = percentile_sorted(sorted, 50);
  s.p99 = percentile_sorted(sorted, 99);
  s.mean = mean_of(sorted);
  s.iqm = interquartile_mean_sorted(sorted);
  s.stddev = stddev_of(sorted, s.mean);
  s.noise = noise_of(s.stddev, s.mean, s.samples);

  std::vector<double> deviations;
  deviations.reserve(sorted.size());
  for (double x : sorted) deviations.push_back(std::abs(x - s.median));
  std::sort(deviations.begin(), deviations.end());
  s.mad = percentile_sorted(deviations, 50);

  const auto interval = median_interval_sorted(sorted);
  s.median_low = interval.low;
  s.median_high = interval.high;
  if (s.samples >= 2 && s.median != 0) s.median_ci = (interval.high - interval.low) / 2.0 / s.median * 100.0;

  if (s.mad > 0) {
    const double limit = kOutlierMads * kMadToSigma * s.mad;
    s.outliers = static_cast<std::size_t>(
        std::count_if(deviations.begin(), deviations.end(), [limit](double d) { return d > limit; }));
  }
  return s;
}

}  // namespace distbench
