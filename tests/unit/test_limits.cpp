// The model's bandwidth figures, each against its definition (model/limits.hpp).
#include "model/limits.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace distbench::model {
namespace {

TEST(ModelLimits, BusbwIsTheBusFactorTimesSizeOverTime) {
  // allreduce at p = 4: bus factor 2(p-1)/p = 1.5; 1 MB in 1 ms is algbw 1 GB/s, busbw 1.5 GB/s
  EXPECT_NEAR(busbw_gbps(Collective::allreduce, 4, 1e6, 1e-3), 1.5, 1e-12);
  EXPECT_TRUE(std::isnan(busbw_gbps(Collective::allreduce, 4, 1e6, 0)));
}

TEST(ModelLimits, RingBoundIsOneOverBetaPlusHalfGamma) {
  // ring allreduce: bus_factor / (b beta + c gamma) with b = bus_factor = 2(p-1)/p and c = b / 2:
  // 1 / (beta + gamma / 2); beta = 1 ns/B, gamma = 0.2 ns/B -> 1 / 1.1 ns/B = 0.909 GB/s at any p
  const auto t4 = cost_terms(Collective::allreduce, Algorithm::ring, 4);
  const auto t16 = cost_terms(Collective::allreduce, Algorithm::ring, 16);
  EXPECT_NEAR(model_bound_gbps(Collective::allreduce, 4, *t4, 1e-9, 0.2e-9), 1 / 1.1, 1e-12);
  EXPECT_NEAR(model_bound_gbps(Collective::allreduce, 16, *t16, 1e-9, 0.2e-9), 1 / 1.1, 1e-12);
}

TEST(ModelLimits, LinkBoundIsTheLinkRateForRingsAndLessForTrees) {
  const auto ring = cost_terms(Collective::allgather, Algorithm::ring, 8);
  EXPECT_NEAR(link_bound_gbps(Collective::allgather, 8, *ring, 12.5), 12.5, 1e-12);
  // binomial allreduce at p = 8: bus factor 1.75 / b = 2 lg p = 6 -> 1.75 / 6 of the link
  const auto tree = cost_terms(Collective::allreduce, Algorithm::binomial, 8);
  EXPECT_NEAR(link_bound_gbps(Collective::allreduce, 8, *tree, 12), 1.75 / 6 * 12, 1e-12);
  EXPECT_TRUE(std::isnan(link_bound_gbps(Collective::allgather, 8, *ring, 0)));
}

TEST(ModelLimits, HalfPerformanceLengthIsAlphaOverBetaForOneMessage) {
  // sendrecv: S_1/2 = alpha / beta; 10 us at 1 ns/B is 10 kB (Hockney's n_1/2)
  const auto t = cost_terms(Collective::sendrecv, Algorithm::direct, 2);
  EXPECT_NEAR(half_performance_bytes(*t, 10e-6, 1e-9, 0), 1e4, 1e-6);
  EXPECT_TRUE(std::isinf(half_performance_bytes(*t, 10e-6, 0, 0)));
}

}  // namespace
}  // namespace distbench::model
