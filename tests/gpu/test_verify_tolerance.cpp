// verify_tolerance.hpp: exact checks everywhere but floating-point avg, whose bound is (n + 2) * eps * M.
#include "backends/nccl/verify_tolerance.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace distbench::nccl {
namespace {

TEST(VerifyTolerance, ExactForIntegersAndForEveryOperatorButAvg) {
  for (DType t : all_dtypes()) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max}) {
      EXPECT_EQ(verify_tolerance(t, op, make_pattern(Collective::allreduce, op, t, 8)), 0.0) << name(t);
    }
    if (is_integer(t)) {
      EXPECT_EQ(verify_tolerance(t, ReduceOp::avg, make_pattern(Collective::allreduce, ReduceOp::avg, t, 8)), 0.0);
    }
  }
}

TEST(VerifyTolerance, FloatAvgFollowsTheBound) {
  const auto p = make_pattern(Collective::allreduce, ReduceOp::avg, DType::float32, 8);
  const double m = p.amp_a + p.amp_t;  // float types are signed: inputs a(i) +- t(i)
  EXPECT_DOUBLE_EQ(verify_tolerance(DType::float32, ReduceOp::avg, p), (8 + 2) * std::ldexp(1.0, -23) * m);
}

TEST(VerifyTolerance, StaysBelowHalfAUnitForSmallGroupsSoIntegerMistakesShow) {
  for (DType t : {DType::float16, DType::bfloat16, DType::float32, DType::float64}) {
    for (int n : {1, 2, 4, 8}) {
      const auto p = make_pattern(Collective::allreduce, ReduceOp::avg, t, n);
      const double tol = verify_tolerance(t, ReduceOp::avg, p);
      EXPECT_GT(tol, 0.0) << name(t) << " n=" << n;
      EXPECT_LT(tol, 0.5) << name(t) << " n=" << n;
    }
  }
}

}  // namespace
}  // namespace distbench::nccl
