// dtype and operator mapping onto NCCL, and what NCCL refuses (no device needed).
#include "backends/nccl/nccl_types.hpp"

#include <gtest/gtest.h>

namespace distbench::nccl {
namespace {

TEST(NcclTypes, EveryDtypeMapsToTheNcclTypeOfTheSameKindAndSize) {
  EXPECT_EQ(nccl_dtype(DType::int8), ncclInt8);
  EXPECT_EQ(nccl_dtype(DType::uint8), ncclUint8);
  EXPECT_EQ(nccl_dtype(DType::int32), ncclInt32);
  EXPECT_EQ(nccl_dtype(DType::uint32), ncclUint32);
  EXPECT_EQ(nccl_dtype(DType::int64), ncclInt64);
  EXPECT_EQ(nccl_dtype(DType::uint64), ncclUint64);
  EXPECT_EQ(nccl_dtype(DType::float16), ncclFloat16);
  EXPECT_EQ(nccl_dtype(DType::bfloat16), ncclBfloat16);
  EXPECT_EQ(nccl_dtype(DType::float32), ncclFloat32);
  EXPECT_EQ(nccl_dtype(DType::float64), ncclFloat64);
}

TEST(NcclTypes, ArithmeticOperatorsMapAndBitwiseOnesDoNot) {
  EXPECT_EQ(nccl_op(ReduceOp::sum), ncclSum);
  EXPECT_EQ(nccl_op(ReduceOp::prod), ncclProd);
  EXPECT_EQ(nccl_op(ReduceOp::min), ncclMin);
  EXPECT_EQ(nccl_op(ReduceOp::max), ncclMax);
  EXPECT_EQ(nccl_op(ReduceOp::avg), ncclAvg);
  EXPECT_FALSE(nccl_op(ReduceOp::band));
  EXPECT_FALSE(nccl_op(ReduceOp::bor));
  EXPECT_FALSE(nccl_op(ReduceOp::bxor));
}

TEST(NcclTypes, BitwiseReductionsAreUnsupportedWithAReasonThatNamesTheWayOut) {
  for (Collective c : all_collectives()) {
    for (ReduceOp op : {ReduceOp::band, ReduceOp::bor, ReduceOp::bxor}) {
      const auto reason = nccl_unsupported(c, DType::int32, op);
      if (!is_reduction(c)) {
        EXPECT_FALSE(reason) << name(c) << " ignores the operator";
        continue;
      }
      ASSERT_TRUE(reason) << name(c) << " " << name(op);
      EXPECT_NE(reason->find("bitwise"), std::string::npos) << *reason;
      EXPECT_NE(reason->find("--backend mpi"), std::string::npos) << *reason;
      EXPECT_NE(reason->find(std::string(name(op))), std::string::npos) << *reason;
    }
  }
}

TEST(NcclTypes, EveryArithmeticCaseIsSupported) {
  for (Collective c : all_collectives()) {
    for (DType t : all_dtypes()) {
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max, ReduceOp::avg}) {
        EXPECT_FALSE(nccl_unsupported(c, t, op)) << name(c) << " " << name(t) << " " << name(op);
      }
    }
  }
}

}  // namespace
}  // namespace distbench::nccl
