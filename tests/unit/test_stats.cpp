// summarize(): median, mean, min, max, sample stddev (n-1), p99 and median like numpy's default (linear
// interpolation between closest ranks), MAD unscaled, noise = stddev / mean in percent, outliers beyond
// 5 * 1.4826 * MAD from the median.
#include "core/measure/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace distbench {
namespace {

TEST(Stats, EmptyInputIsAllZeros) {
  const Summary s = summarize({});
  EXPECT_EQ(s.samples, 0u);
  EXPECT_EQ(s.median, 0);
  EXPECT_EQ(s.mean, 0);
  EXPECT_EQ(s.min, 0);
  EXPECT_EQ(s.max, 0);
  EXPECT_EQ(s.stddev, 0);
  EXPECT_EQ(s.p99, 0);
  EXPECT_EQ(s.mad, 0);
  EXPECT_EQ(s.noise, 0);
  EXPECT_EQ(s.outliers, 0u);
}

TEST(Stats, SingleSample) {
  const std::vector<double> xs = {5};
  const Summary s = summarize(xs);
  EXPECT_EQ(s.samples, 1u);
  EXPECT_EQ(s.median, 5);
  EXPECT_EQ(s.mean, 5);
  EXPECT_EQ(s.min, 5);
  EXPECT_EQ(s.max, 5);
  EXPECT_EQ(s.p99, 5);
  EXPECT_EQ(s.stddev, 0);  // fewer than 2 samples
  EXPECT_EQ(s.noise, 0);
  EXPECT_EQ(s.mad, 0);
}

TEST(Stats, OddCountUnsorted) {
  const std::vector<double> xs = {5, 1, 4, 2, 3};
  const Summary s = summarize(xs);
  EXPECT_EQ(s.samples, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.5));  // squares 4+1+0+1+4 over n-1 = 4
  EXPECT_DOUBLE_EQ(s.p99, 4.96);               // rank 0.99 * 4 = 3.96: 4 + 0.96 * (5 - 4)
  EXPECT_DOUBLE_EQ(s.mad, 1);                  // deviations {2,1,0,1,2}
  EXPECT_DOUBLE_EQ(s.noise, std::sqrt(2.5) / 3 * 100);
  EXPECT_EQ(s.outliers, 0u);
}

TEST(Stats, EvenCountMedianAveragesTheMiddlePair) {
  const std::vector<double> xs = {4, 1, 3, 2};
  const Summary s = summarize(xs);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.p99, 3.97);  // rank 2.97
  EXPECT_DOUBLE_EQ(s.mad, 1);     // deviations {1.5, 0.5, 0.5, 1.5}
}

TEST(Stats, P99MatchesNumpyOnOneToHundred) {
  std::vector<double> xs;
  for (int k = 100; k >= 1; --k) xs.push_back(k);
  // numpy.percentile(range(1, 101), 99) == 99.01
  EXPECT_NEAR(summarize(xs).p99, 99.01, 1e-12);
}

TEST(Stats, PercentileSortedEndsAndClamps) {
  const std::vector<double> sorted = {10, 20, 30};
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 0), 10);
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 25), 15);
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 50), 20);
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 100), 30);
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 150), 30);
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, -5), 10);
  EXPECT_EQ(percentile_sorted({}, 50), 0);
}

TEST(Stats, NoiseIsZeroWhenMeanIsZero) {
  const std::vector<double> xs = {-1, 1};
  const Summary s = summarize(xs);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.0));
  EXPECT_EQ(s.noise, 0);
  EXPECT_EQ(relative_noise(xs), 0);
}

TEST(Stats, RelativeNoiseAgreesWithSummary) {
  const std::vector<double> xs = {10, 12, 11, 13, 9};
  EXPECT_DOUBLE_EQ(relative_noise(xs), summarize(xs).noise);
  EXPECT_DOUBLE_EQ(relative_noise(xs), std::sqrt(2.5) / 11 * 100);
  EXPECT_EQ(relative_noise(std::vector<double>{7}), 0);
  EXPECT_EQ(relative_noise({}), 0);
}

TEST(Stats, OutliersBeyondFiveScaledMads) {
  // median 10; deviations {1,1,0,0,0,1,1,d}: MAD 1, so the limit is 5 * 1.4826 = 7.413
  std::vector<double> xs = {9, 9, 10, 10, 10, 11, 11, 17};  // deviation 7: inside
  EXPECT_DOUBLE_EQ(summarize(xs).mad, 1);
  EXPECT_EQ(summarize(xs).outliers, 0u);
  xs.back() = 18;  // deviation 8: outside
  EXPECT_EQ(summarize(xs).outliers, 1u);
  xs.back() = 1000;
  xs[0] = -1000;
  EXPECT_EQ(summarize(xs).outliers, 2u);
}

TEST(Stats, NoOutliersWhenMadIsZero) {
  const std::vector<double> xs = {10, 10, 10, 10, 10, 11, 100};
  const Summary s = summarize(xs);
  EXPECT_EQ(s.mad, 0);
  EXPECT_EQ(s.outliers, 0u);
}

TEST(Stats, DoesNotReorderTheInput) {
  const std::vector<double> xs = {3, 1, 2};
  summarize(xs);
  EXPECT_EQ(xs, (std::vector<double>{3, 1, 2}));
}

// The median's 95% interval from order statistics: for n = 20 it is [x(6), x(15)] (coverage 95.86 %), for
// n = 10 [x(2), x(9)] (97.85 %); below 6 samples no interval reaches 95 % and it is the whole range.
TEST(Stats, MedianIntervalUsesTheBinomialOrderStatistics) {
  std::vector<double> xs;
  for (int k = 1; k <= 20; ++k) xs.push_back(k);
  auto interval = median_interval_sorted(xs);
  EXPECT_EQ(interval.low, 6);
  EXPECT_EQ(interval.high, 15);
  xs.resize(10);
  interval = median_interval_sorted(xs);
  EXPECT_EQ(interval.low, 2);
  EXPECT_EQ(interval.high, 9);
  xs.resize(6);
  interval = median_interval_sorted(xs);  // P(B = 0) = 1/64 <= 2.5 %: [x(1), x(6)]
  EXPECT_EQ(interval.low, 1);
  EXPECT_EQ(interval.high, 6);
  xs.resize(5);
  interval = median_interval_sorted(xs);
  EXPECT_EQ(interval.low, 1);
  EXPECT_EQ(interval.high, 5);
  interval = median_interval_sorted(std::vector<double>{});
  EXPECT_EQ(interval.low, 0);
  EXPECT_EQ(interval.high, 0);
}

// 2^-n underflows to 0 past 1074 samples: the interval must still come from the binomial, here close to the normal
// approximation n/2 -+ 1.96 sqrt(n)/2 (for n = 4000: x(1939) .. x(2062)), and never turn inside out.
TEST(Stats, MedianIntervalOfManySamples) {
  for (int n : {1074, 1075, 1200, 4000, 100000}) {
    std::vector<double> xs;
    for (int k = 1; k <= n; ++k) xs.push_back(k);
    const auto interval = median_interval_sorted(xs);
    const double half = 1.96 * std::sqrt(n) / 2;
    EXPECT_NEAR(interval.low, n / 2.0 - half, 2.0) << n;
    EXPECT_NEAR(interval.high, n / 2.0 + half, 2.0) << n;
    EXPECT_GT(summarize(xs).median_ci, 0) << n;
  }
}

TEST(Stats, MedianCiIsTheRelativeHalfWidth) {
  std::vector<double> xs;
  for (int k = 1; k <= 20; ++k) xs.push_back(100 + k);  // median 110.5, interval [106, 115]
  EXPECT_DOUBLE_EQ(median_ci_percent(xs), (115.0 - 106.0) / 2 / 110.5 * 100);
  const Summary s = summarize(xs);
  EXPECT_DOUBLE_EQ(s.median_ci, median_ci_percent(xs));
  EXPECT_EQ(s.median_low, 106);
  EXPECT_EQ(s.median_high, 115);
  EXPECT_EQ(median_ci_percent(std::vector<double>{5}), 0);
  EXPECT_EQ(median_ci_percent(std::vector<double>{0, 0, 0}), 0);
}

TEST(Stats, MedianCiIsRobustToOutliersWhereStddevIsNot) {
  std::vector<double> xs(17, 2.0);
  xs.insert(xs.end(), {40.0, 50.0, 60.0});  // three preempted samples
  const Summary s = summarize(xs);
  EXPECT_GT(s.noise, 100);
  EXPECT_EQ(s.median_ci, 0);
}

// The interquartile mean: (n+1)/4 samples left out at each end, the mean of the rest; the median up to 3 samples.
TEST(Stats, InterquartileMeanLeavesOutAQuarterAtEachEnd) {
  EXPECT_EQ(interquartile_mean_sorted(std::vector<double>{}), 0);
  EXPECT_EQ(interquartile_mean_sorted(std::vector<double>{4}), 4);
  EXPECT_EQ(interquartile_mean_sorted(std::vector<double>{1, 3}), 2);
  EXPECT_EQ(interquartile_mean_sorted(std::vector<double>{1, 2, 90}), 2);     // 1 left out at each end
  EXPECT_EQ(interquartile_mean_sorted(std::vector<double>{1, 2, 4, 90}), 3);  // (2 + 4) / 2
  EXPECT_EQ(interquartile_mean_sorted(std::vector<double>{1, 2, 3, 5, 90}), 10.0 / 3);
  std::vector<double> twenty(20);
  for (std::size_t i = 0; i < twenty.size(); ++i) twenty[i] = static_cast<double>(i + 1);  // 6 .. 15 kept
  EXPECT_DOUBLE_EQ(interquartile_mean_sorted(twenty), 10.5);
  EXPECT_DOUBLE_EQ(summarize(twenty).iqm, 10.5);
}

// The case: one preempted sample among 20 moves the mean 25-fold and the interquartile mean not at all.
TEST(Stats, OnePreemptedSampleMovesTheMeanNotTheInterquartileMean) {
  std::vector<double> samples(20, 0.5e-6);
  const Summary quiet = summarize(samples);
  samples[7] = 0.5e-6 * 1000;
  const Summary busy = summarize(samples);
  EXPECT_GT(busy.mean / quiet.mean, 25);
  EXPECT_DOUBLE_EQ(busy.iqm, quiet.iqm);
  EXPECT_DOUBLE_EQ(busy.iqm, 0.5e-6);
}

TEST(Percentile, SortsItsOwnCopyAndIsNanWhenEmpty) {
  EXPECT_DOUBLE_EQ(percentile({3.0, 1.0, 2.0}, 50), 2.0);
  EXPECT_DOUBLE_EQ(percentile({4.0, 1.0, 3.0, 2.0}, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile({5.0, 1.0}, 100), 5.0);
  EXPECT_TRUE(std::isnan(percentile({}, 50)));
}

TEST(SlowestPerSample, TakesEachSamplesLargestOverRanks) {
  EXPECT_EQ(slowest_per_sample({{1.0, 5.0, 2.0}, {3.0, 4.0, 2.5}}), (std::vector<double>{3.0, 5.0, 2.5}));
  EXPECT_EQ(slowest_per_sample({{1.0}, {0.5, 2.0}}), (std::vector<double>{1.0, 2.0}));
  EXPECT_TRUE(slowest_per_sample({}).empty());
}

}  // namespace
}  // namespace distbench
