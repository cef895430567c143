// normal_quantile(): the standard normal quantile against tabulated values; normal_cdf() is its inverse.
#include "core/measure/normal_quantile.hpp"

#include <gtest/gtest.h>

namespace distbench {
namespace {

TEST(NormalQuantile, MatchesTabulatedValues) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963985, 1e-8);
  EXPECT_NEAR(normal_quantile(0.995), 2.575829304, 1e-8);
  EXPECT_NEAR(normal_quantile(0.5), 0, 1e-12);
  EXPECT_NEAR(normal_quantile(0.001), -3.090232306, 1e-8);
}

TEST(NormalQuantile, IsTheInverseOfTheCdf) {
  EXPECT_NEAR(normal_cdf(1.959963985), 0.975, 1e-9);
  for (double p : {1e-6, 0.01, 0.3, 0.7, 0.99}) EXPECT_NEAR(normal_cdf(normal_quantile(p)), p, 1e-12 + 1e-9 * p);
}

}  // namespace
}  // namespace distbench
