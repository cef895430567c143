// The robust relative fit: exact recovery, refusal of gross outliers (Tukey's biweight gives them weight 0),
// collinear and negative columns left out, intervals that cover the truth, and Student's t.
#include "model/robust_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace distbench::model {
namespace {

// Ring allreduce rows at p ranks for sizes 8 B .. 8 MiB by 4: (2(p-1), 2(p-1)/p S, (p-1)/p S).
void ring_rows(int p, std::vector<Row>& x) {
  for (double s = 8; s <= 8 * 1024 * 1024; s *= 4)
    x.push_back({2.0 * (p - 1), 2.0 * (p - 1) / p * s, (p - 1.0) / p * s});
}

constexpr double kAlpha = 20e-6, kBeta = 1e-9;  // 20 us, 1 GB/s

std::vector<double> times(const std::vector<Row>& x, double noise) {
  std::vector<double> y;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double wobble = (i % 2 == 0 ? 1 : -1) * noise * ((i % 3) + 1) / 3;  // deterministic, +-noise
    y.push_back((x[i][0] * kAlpha + x[i][1] * kBeta) * (1 + wobble));
  }
  return y;
}

TEST(RobustFit, RecoversExactParametersAndLeavesTheCollinearColumnOut) {
  std::vector<Row> x;
  ring_rows(2, x);
  ring_rows(4, x);
  const RobustFit f = robust_relative_fit(x, times(x, 0));
  ASSERT_TRUE(f.ok);
  EXPECT_NEAR(f.value[0], kAlpha, kAlpha * 1e-9);
  EXPECT_NEAR(f.value[1], kBeta, kBeta * 1e-9);
  // gamma's column is half of beta's at every p for the ring: it cannot be told apart
  EXPECT_TRUE(f.fitted[0]);
  EXPECT_TRUE(f.fitted[1]);
  EXPECT_FALSE(f.fitted[2]);
  EXPECT_EQ(f.value[2], 0.0);
  EXPECT_EQ(f.used, x.size());
}

TEST(RobustFit, IntervalsCoverTheTruthUnderNoise) {
  std::vector<Row> x;
  ring_rows(3, x);
  const RobustFit f = robust_relative_fit(x, times(x, 0.03));
  ASSERT_TRUE(f.ok);
  EXPECT_LE(f.low[0], kAlpha);
  EXPECT_GE(f.high[0], kAlpha);
  EXPECT_LE(f.low[1], kBeta);
  EXPECT_GE(f.high[1], kBeta);
  EXPECT_LT(f.high[1] - f.low[1], 0.1 * kBeta);  // 3 % noise pins beta to a few percent
  EXPECT_GT(f.t_quantile, 2.0);
}

// Noise below the 1 % floor is not told apart, in the intervals too: exact data get the intervals of 1 % noise (the
// same as data with 0.1 % noise), not intervals of zero width.
TEST(RobustFit, ExactDataGetTheIntervalsOfTheScalesFloor) {
  std::vector<Row> x;
  ring_rows(3, x);
  const RobustFit exact = robust_relative_fit(x, times(x, 0));
  const RobustFit quiet = robust_relative_fit(x, times(x, 0.001));
  ASSERT_TRUE(exact.ok);
  ASSERT_TRUE(quiet.ok);
  for (std::size_t j : {0u, 1u}) {
    SCOPED_TRACE(j);
    EXPECT_LT(exact.low[j], exact.value[j]);
    EXPECT_GT(exact.high[j], exact.value[j]);
    const double width = exact.high[j] - exact.low[j];
    EXPECT_NEAR(width / (quiet.high[j] - quiet.low[j]), 1, 0.05);
    EXPECT_GT(width, 0.001 * exact.value[j]);
    EXPECT_NEAR(width / 2, exact.t_quantile * std::sqrt(exact.covariance[j][j]), 1e-12 * exact.value[j]);
  }
}

TEST(RobustFit, GrossOutliersGetWeightZeroAndDoNotMoveTheFit) {
  std::vector<Row> x;
  ring_rows(2, x);
  std::vector<double> y = times(x, 0.01);
  y[3] *= 3;    // a cliff
  y[7] *= 0.3;  // in a cache
  const RobustFit f = robust_relative_fit(x, y);
  ASSERT_TRUE(f.ok);
  EXPECT_EQ(f.weight[3], 0.0);
  EXPECT_EQ(f.weight[7], 0.0);
  EXPECT_EQ(f.used, x.size() - 2);
  EXPECT_NEAR(f.value[0], kAlpha, 0.05 * kAlpha);
  EXPECT_NEAR(f.value[1], kBeta, 0.02 * kBeta);
}

TEST(RobustFit, ANegativeEstimateIsFixedAtZero) {
  // y = 1 ns/B * S - 0.5 us per start-up: the unconstrained alpha is -0.5 us; it is left out, beta alone stays
  const std::vector<Row> x = {{1, 1000, 0}, {2, 2000, 0}, {4, 4000, 0}, {1, 8000, 0}};
  const std::vector<double> y = {0.5e-6, 1e-6, 2e-6, 7.5e-6};
  const RobustFit f = robust_relative_fit(x, y);
  ASSERT_TRUE(f.ok);
  EXPECT_FALSE(f.fitted[0]);
  EXPECT_EQ(f.value[0], 0.0);
  EXPECT_TRUE(f.fitted[1]);
  EXPECT_GT(f.value[1], 0.0);
}

TEST(RobustFit, TooFewPointsOrNonPositiveTimesDoNotFit) {
  EXPECT_FALSE(robust_relative_fit({{1, 8, 0}, {1, 64, 0}}, {1e-6, 2e-6}).ok);  // 2 points, 2 columns: no interval
  EXPECT_FALSE(robust_relative_fit({{1, 8, 0}, {1, 64, 0}, {1, 512, 0}}, {1e-6, 0, 3e-6}).ok);
  EXPECT_FALSE(robust_relative_fit({}, {}).ok);
}

TEST(RobustFit, StudentTQuantiles) {
  // tables: t(0.975; 1) = 12.706, t(0.975; 2) = 4.303, t(0.975; 3) = 3.182, t(0.975; 5) = 2.571,
  // t(0.975; 10) = 2.228, t(0.975; 30) = 2.042
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706, 0.001);
  EXPECT_NEAR(student_t_quantile(0.975, 2), 4.303, 0.001);
  EXPECT_NEAR(student_t_quantile(0.975, 3), 3.182, 0.006);
  EXPECT_NEAR(student_t_quantile(0.975, 5), 2.571, 0.003);
  EXPECT_NEAR(student_t_quantile(0.975, 10), 2.228, 0.002);
  EXPECT_NEAR(student_t_quantile(0.975, 30), 2.042, 0.001);
}

TEST(RobustFit, PredictionVarianceIsTheQuadraticForm) {
  RobustFit f;
  f.covariance = {{{4, 1, 0}, {1, 9, 0}, {0, 0, 0}}};
  // [1 2 0] C [1 2 0]' = 4 + 2*1*2 + 4*9 = 44
  EXPECT_DOUBLE_EQ(prediction_variance(f, {1, 2, 0}), 44);
}

}  // namespace
}  // namespace distbench::model
