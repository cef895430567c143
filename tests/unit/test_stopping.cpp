// StoppingRule: a count of samples cut to a time budget, or nvbench's stdrel criterion with a robust noise figure
// (stop once the median's 95% confidence interval is within the target after min_samples, or when the time budget
// is spent, never without a sample).
#include "core/measure/stopping.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace distbench {
namespace {

std::vector<double> constant(std::size_t n) { return std::vector<double>(n, 1.0); }
// Alternating 1 and 3: mean 2, noise about 50 %.
std::vector<double> noisy(std::size_t n) {
  std::vector<double> xs;
  for (std::size_t k = 0; k < n; ++k) xs.push_back(k % 2 == 0 ? 1.0 : 3.0);
  return xs;
}

TEST(Stopping, FixedModeCountsSamples) {
  StoppingRule rule;
  rule.samples = 5;
  EXPECT_FALSE(rule.noise_mode());
  EXPECT_FALSE(rule.done(constant(0), 0));
  EXPECT_FALSE(rule.done(constant(4), 1e9));  // time does not matter in fixed mode
  EXPECT_TRUE(rule.done(constant(5), 0));
  EXPECT_TRUE(rule.done(constant(6), 0));
  EXPECT_FALSE(rule.done(noisy(4), 0));
  EXPECT_TRUE(rule.done(noisy(5), 0));  // noise does not matter either
}

TEST(Stopping, CountModePlansAsManySamplesAsFitTheBudget) {
  StoppingRule rule;
  rule.samples = 20;
  rule.min_samples = 10;
  rule.max_time_s = 0.05;
  EXPECT_EQ(rule.planned_samples(1e-3), 20u);    // 20 ms of samples fit
  EXPECT_EQ(rule.planned_samples(0.0025), 20u);  // exactly 50 ms
  EXPECT_EQ(rule.planned_samples(0.004), 12u);   // 12 fit in 50 ms
  EXPECT_EQ(rule.planned_samples(0.1), 10u);     // never fewer than min_samples
  rule.min_samples = 30;
  EXPECT_EQ(rule.planned_samples(0.1), 20u);  // nor more than -n
  rule.max_time_s = 0;                        // no budget: exactly -n
  rule.min_samples = 1;
  EXPECT_EQ(rule.planned_samples(10.0), 20u);
  rule.max_time_s = 0.05;
  EXPECT_EQ(rule.planned_samples(10.0), 1u);  // at least one sample, whatever the budget
  EXPECT_EQ(rule.planned_samples(0), 20u);    // an unmeasurably short sample: -n
}

TEST(Stopping, FixedModeTargetIsAlwaysMet) {
  StoppingRule rule;
  EXPECT_TRUE(rule.target_met(constant(0)));
  EXPECT_TRUE(rule.target_met(noisy(3)));
}

TEST(Stopping, NegativeNoiseMeansFixedMode) {
  StoppingRule rule;
  rule.max_noise = -1;
  rule.samples = 2;
  EXPECT_FALSE(rule.noise_mode());
  EXPECT_TRUE(rule.done(noisy(2), 0));
}

StoppingRule noise_rule() {
  StoppingRule rule;
  rule.max_noise = 1.0;
  rule.min_samples = 10;
  rule.max_time_s = 5.0;
  return rule;
}

TEST(Stopping, NoiseModeWaitsForMinSamples) {
  const StoppingRule rule = noise_rule();
  EXPECT_TRUE(rule.noise_mode());
  EXPECT_FALSE(rule.done(constant(9), 0));
  EXPECT_FALSE(rule.target_met(constant(9)));
  EXPECT_TRUE(rule.done(constant(10), 0));
  EXPECT_TRUE(rule.target_met(constant(10)));
}

TEST(Stopping, NoiseModeKeepsGoingWhileNoisy) {
  const StoppingRule rule = noise_rule();
  EXPECT_FALSE(rule.done(noisy(50), 4.9));
  EXPECT_FALSE(rule.target_met(noisy(50)));
}

TEST(Stopping, NoiseAtTheTargetIsEnough) {
  StoppingRule rule = noise_rule();
  rule.min_samples = 2;
  const std::vector<double> xs = {1, 3};  // two samples: the interval is [1, 3] around a median of 2: 50 %
  rule.max_noise = 49.9;
  EXPECT_FALSE(rule.target_met(xs));
  rule.max_noise = 50.0;
  EXPECT_TRUE(rule.target_met(xs));
  EXPECT_TRUE(rule.done(xs, 0));
}

TEST(Stopping, NoiseModeStopsAtTheTimeLimitWithoutMeetingTheTarget) {
  const StoppingRule rule = noise_rule();
  EXPECT_TRUE(rule.done(noisy(50), 5.0));
  EXPECT_TRUE(rule.done(noisy(3), 6.0));  // fewer than min_samples, but out of time
  EXPECT_FALSE(rule.target_met(noisy(50)));
}

TEST(Stopping, NoiseModeNeverStopsWithoutASample) {
  StoppingRule rule = noise_rule();
  EXPECT_FALSE(rule.done(constant(0), 100.0));
  rule.min_samples = 0;
  EXPECT_FALSE(rule.done(constant(0), 0));
  EXPECT_TRUE(rule.done(constant(1), 100.0));
}

TEST(Stopping, NoiseModeIgnoresAFewPreemptedSamples) {
  // 30 samples within 1 % of each other and three hit by a preemption (10x): stddev/mean would be ~90 %, the
  // median's interval stays within 1 %.
  std::vector<double> xs;
  for (int k = 0; k < 30; ++k) xs.push_back(1.0 + 0.0005 * (k % 20));
  xs.insert(xs.end(), {10.0, 10.0, 10.0});
  StoppingRule rule = noise_rule();
  EXPECT_TRUE(rule.target_met(xs));
  EXPECT_TRUE(rule.done(xs, 0));
}

}  // namespace
}  // namespace distbench
