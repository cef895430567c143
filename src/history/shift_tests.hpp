// The t-tests the history's check makes on log values (a shift of log values is a relative change of the metric):
// Student's two-sample test between two segments of a series (a change point's significance and its interval), and
// the one-sample prediction test of a single new value against a segment (the newest run alone).
//
// The two-sample test pools the variance (Student's, not Welch's): a new segment has few runs (3 when min_segment is
// 3), and its own variance from 3 runs is a poor estimate (Welch's degrees of freedom fall to about 2, and a +10% step
// at 3% noise would need more runs after it than the gate's window holds); the noise of a series is a property of the
// machine and the case, which a change of its level does not change, so the long segment's estimate serves both.
#pragma once

#include "core/report/record.hpp"  // kNotMeasured

#include <cstddef>
#include <span>
#include <vector>

namespace distbench::history {

// The mean and the sample variance (n - 1 in the denominator; 0 for fewer than two values) of values.
struct Moments {
  std::size_t n = 0;
  double mean = kNotMeasured;
  double variance = 0;
};
Moments moments(std::span<const double> values);

// Spikes: a run on a busy machine can be several times slower, and one such value would swamp a segment's variance
// (the tests would stop seeing steps). The tests therefore see each side winsorized: clipped to its median +-
// kClipScales times the series' robust noise, so a spike counts as a large value, not as a huge one; normal noise is
// beyond 4 sd once in 16,000 values, so series without spikes are left as they are.
inline constexpr double kClipScales = 4;

// A series' robust noise, immune to steps and spikes: 1.4826 median |z_i - z_{i-1}| / sqrt(2) (a step adds one large
// difference, a spike two; the median ignores both). 0 for fewer than two values.
double difference_scale(std::span<const double> z);

// `side` clipped to its median +- kClipScales * scale; as it is when scale is 0 (values so coarse that most successive
// ones are equal: clipping at 0 would make every side its median).
std::vector<double> winsorized(std::span<const double> side, double scale);

// A test of a shift between two sides: the shift (second minus first, in log units), its interval at the confidence
// asked (none for a confidence of 0: the test alone costs less) and the two-sided p-value. Sides without spread: p 0
// when they differ, 1 when they are equal, and an interval of zero width.
struct ShiftTest {
  double shift = kNotMeasured, low = kNotMeasured, high = kNotMeasured;
  double p = 1;
  double dof = kNotMeasured;
};

// Student's t-test of mean(after) - mean(before) with the pooled variance, n + m - 2 degrees of freedom. Each side
// needs at least two values (else p 1 and no interval).
ShiftTest student_test(std::span<const double> before, std::span<const double> after, double confidence);

// A new value against a segment (at least two values): t = (x - mean) / (sd sqrt(1 + 1/n)) with n - 1 degrees of
// freedom, the prediction interval's test (is x what the segment would give next?).
ShiftTest prediction_test(std::span<const double> segment, double x, double confidence);

}  // namespace distbench::history
