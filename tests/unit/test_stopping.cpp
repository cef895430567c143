// StoppingRule: a fixed count of samples, or nvbench's stdrel criterion (stop once the relative noise is at or
// below the target after min_samples, or when the time budget is spent, never without a sample).
#include "core/stopping.hpp"

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
  const std::vector<double> xs = {1, 3};  // stddev sqrt(2), mean 2: noise 70.71 %
  rule.max_noise = 70.0;
  EXPECT_FALSE(rule.target_met(xs));
  rule.max_noise = 71.0;
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

}  // namespace
}  // namespace distbench
