#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
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

}  // namespace

double percentile_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) return 0;
  const double position = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  if (below + 1 >= sorted.size()) return sorted.back();
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[below + 1] - sorted[below]);
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
  s.stddev = stddev_of(sorted, s.mean);
  s.noise = noise_of(s.stddev, s.mean, s.samples);

  std::vector<double> deviations;
  deviations.reserve(sorted.size());
  for (double x : sorted) deviations.push_back(std::abs(x - s.median));
  std::sort(deviations.begin(), deviations.end());
  s.mad = percentile_sorted(deviations, 50);

  if (s.mad > 0) {
    const double limit = kOutlierMads * kMadToSigma * s.mad;
    s.outliers = static_cast<std::size_t>(
        std::count_if(deviations.begin(), deviations.end(), [limit](double d) { return d > limit; }));
  }
  return s;
}

}  // namespace distbench
