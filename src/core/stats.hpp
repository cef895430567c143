// Statistics over timing samples.
#pragma once

#include <cstddef>
#include <span>

namespace distbench {

struct Summary {
  std::size_t samples = 0;
  double median = 0, mean = 0, min = 0, max = 0;
  double stddev = 0;  // sample standard deviation (n-1); 0 for fewer than 2 samples
  double p99 = 0;     // linear interpolation between closest ranks
  double mad = 0;     // median absolute deviation
  double noise = 0;   // relative standard deviation, stddev / mean, in percent
  std::size_t outliers = 0;  // samples farther than 5 scaled MADs from the median
};

Summary summarize(std::span<const double> samples);
// Percentile q in [0, 100] with linear interpolation between closest ranks (sorted input).
double percentile_sorted(std::span<const double> sorted, double q);
// Relative noise (%) as stddev / mean.
double relative_noise(std::span<const double> samples);

}  // namespace distbench
