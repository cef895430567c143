// Statistics over timing samples.
#pragma once

#include <cstddef>
#include <span>

namespace distbench {

// All zeros for no samples.
struct Summary {
  std::size_t samples = 0;
  double median = 0, mean = 0, min = 0, max = 0;  // median: the mean of the middle pair for even counts
  double stddev = 0;  // sample standard deviation (n-1); 0 for fewer than 2 samples
  double p99 = 0;     // linear interpolation between closest ranks (numpy's default)
  double mad = 0;     // median absolute deviation from the median, unscaled
  double noise = 0;   // relative standard deviation, stddev / mean, in percent; 0 when mean is 0 or n < 2
  // Samples farther than 5 scaled MADs (5 * 1.4826 * mad) from the median; 0 when mad is 0.
  std::size_t outliers = 0;
};

Summary summarize(std::span<const double> samples);
// Percentile q in [0, 100] (clamped) with linear interpolation between closest ranks (sorted input); 0 when empty.
double percentile_sorted(std::span<const double> sorted, double q);
// Relative noise (%) as stddev / mean, as in Summary::noise.
double relative_noise(std::span<const double> samples);

}  // namespace distbench
