// Statistics over timing samples.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace distbench {

// All zeros for no samples.
struct Summary {
  std::size_t samples = 0;
  double median = 0, mean = 0, min = 0, max = 0;  // median: the mean of the middle pair for even counts
  double stddev = 0;                              // sample standard deviation (n-1); 0 for fewer than 2 samples
  double p99 = 0;                                 // linear interpolation between closest ranks (numpy's default)
  double mad = 0;                                 // median absolute deviation from the median, unscaled
  double noise = 0;  // relative standard deviation, stddev / mean, in percent; 0 when mean is 0 or n < 2
  // Samples farther than 5 scaled MADs (5 * 1.4826 * mad) from the median; 0 when mad is 0.
  std::size_t outliers = 0;
  // Distribution-free 95% confidence interval of the median (order statistics; see median_interval), and its
  // half-width relative to the median in percent: the noise figure that warnings and --max-noise judge.
  double median_low = 0, median_high = 0;
  double median_ci = 0;
  // The interquartile mean: the mean of the middle half, (n+1)/4 (integer division) samples left out at each end
  // (the median for n <= 3). One preempted sample cannot move it far, and unlike the median it does not jump
  // between two modes of a busy machine: the collectives' headline time (bench/aa_time_statistic.py).
  double iqm = 0;
};

// The 95% confidence interval of the median from order statistics, assuming nothing about the distribution:
// [x(j), x(n+1-j)] (1-based, sorted) with the largest j whose coverage 1 - 2 P(Binomial(n, 1/2) <= j-1) is at
// least 95%. Fewer than 6 samples cannot reach 95%: the interval is then [min, max].
struct MedianInterval {
  double low = 0, high = 0;
};
MedianInterval median_interval_sorted(std::span<const double> sorted);
// (high - low) / 2 / median in percent; 0 for fewer than 2 samples or a zero median.
double median_ci_percent(std::span<const double> samples);

Summary summarize(std::span<const double> samples);
// Percentile q in [0, 100] (clamped) with linear interpolation between closest ranks (sorted input); 0 when empty.
double percentile_sorted(std::span<const double> sorted, double q);
// Percentile q in [0, 100] of samples in any order (as percentile_sorted); NaN when there are none.
double percentile(std::vector<double> samples, double q);
// Per sample index, the largest value over the rows (one row per rank): the slowest rank's time of each sample.
// Rows may differ in length; the result is as long as the longest.
std::vector<double> slowest_per_sample(const std::vector<std::vector<double>>& by_rank);
// The interquartile mean of sorted samples, as Summary::iqm; 0 when empty.
double interquartile_mean_sorted(std::span<const double> sorted);
// Relative noise (%) as stddev / mean, as in Summary::noise.
double relative_noise(std::span<const double> samples);

}  // namespace distbench
