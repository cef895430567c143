// zero --check's comparison (benchmarks/zero/verify): the first mismatch, where it sits, the single-rank reference.
#include "benchmarks/zero/step.hpp"
#include "benchmarks/zero/verify.hpp"
#include "numerics/adam.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace distbench::zero {
namespace {

TEST(Check, FirstMismatchIsTheLowestIndexAndCountsAll) {
  const std::vector<std::uint64_t> idx{7, 3, 9, 4};
  const std::vector<float> want{1.0f, 2.0f, 3.0f, 4.0f};
  EXPECT_FALSE(first_mismatch("parameter", idx, want, want).has_value());
  std::vector<float> got = want;
  got[2] = 3.5f;
  got[3] = std::nextafter(4.0f, 5.0f);  // one ulp is a mismatch: the check is bitwise
  const auto m = first_mismatch("parameter", idx, got, want);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->index, 4U);
  EXPECT_EQ(m->count, 2U);
  EXPECT_EQ(m->expected, 4.0f);
  // -0 and +0 differ in bits
  EXPECT_TRUE(first_mismatch("parameter", {0}, {-0.0f}, {0.0f}).has_value());
}

TEST(Check, TensorPositionNamesTheLayer) {
  EXPECT_EQ(tensor_position(0, {4, 3, 3}), "tensor 0 (of 3), index 0");
  EXPECT_EQ(tensor_position(5, {4, 3, 3}), "tensor 1 (of 3), index 1");
  EXPECT_EQ(tensor_position(9, {4, 3, 3}), "tensor 2 (of 3), index 2");
}

TEST(Check, ReferenceRunMovesEveryWeightAgainstItsSummedGradient) {
  // One step of Adam moves each weight by about lr against the sign of its gradient (zero gradient: no move).
  const Reference r = reference_run(0, 50, 2, 1, DType::float32, numerics::AdamConfig{});
  for (std::size_t i = 0; i < 50; ++i) {
    const float g = gradient_value(i, 0, 1) + gradient_value(i, 1, 1);
    const float w0 = initial_weight(i);
    if (g == 0) {
      EXPECT_EQ(r.master[i], w0);
    } else {
      EXPECT_NEAR(r.master[i], w0 - (g > 0 ? 1e-3f : -1e-3f), 1e-5f) << i;
    }
    EXPECT_EQ(r.params[i], r.master[i]);  // fp32: the parameters are the master weights
  }
}

}  // namespace
}  // namespace distbench::zero
