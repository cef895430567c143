// Element types and reduction operators: names, the aliases nccl-tests users type, sizes, signedness, and which
// operators apply to which types (bitwise ones to integers only).
#include "core/device/dtype.hpp"
#include "core/device/reduce_op.hpp"

#include <gtest/gtest.h>

namespace distbench {
namespace {

TEST(DType, NamesRoundTrip) {
  EXPECT_EQ(all_dtypes().size(), 10u);
  for (DType t : all_dtypes()) EXPECT_EQ(parse_dtype(name(t)), t) << name(t);
  EXPECT_EQ(name(DType::bfloat16), "bfloat16");
  EXPECT_EQ(name(DType::uint64), "uint64");
}

TEST(DType, Aliases) {
  EXPECT_EQ(parse_dtype("half"), DType::float16);
  EXPECT_EQ(parse_dtype("fp16"), DType::float16);
  EXPECT_EQ(parse_dtype("bf16"), DType::bfloat16);
  EXPECT_EQ(parse_dtype("float"), DType::float32);
  EXPECT_EQ(parse_dtype("fp32"), DType::float32);
  EXPECT_EQ(parse_dtype("double"), DType::float64);
  EXPECT_EQ(parse_dtype("fp64"), DType::float64);
  EXPECT_EQ(parse_dtype("int"), DType::int32);
  EXPECT_EQ(parse_dtype("char"), DType::int8);
  EXPECT_EQ(parse_dtype("Float"), std::nullopt);
  EXPECT_EQ(parse_dtype("float128"), std::nullopt);
  EXPECT_EQ(parse_dtype(""), std::nullopt);
}

TEST(DType, Sizes) {
  EXPECT_EQ(size_of(DType::int8), 1u);
  EXPECT_EQ(size_of(DType::uint8), 1u);
  EXPECT_EQ(size_of(DType::float16), 2u);
  EXPECT_EQ(size_of(DType::bfloat16), 2u);
  EXPECT_EQ(size_of(DType::int32), 4u);
  EXPECT_EQ(size_of(DType::uint32), 4u);
  EXPECT_EQ(size_of(DType::float32), 4u);
  EXPECT_EQ(size_of(DType::int64), 8u);
  EXPECT_EQ(size_of(DType::uint64), 8u);
  EXPECT_EQ(size_of(DType::float64), 8u);
}

TEST(DType, IntegersAndSignedness) {
  for (DType t : {DType::int8, DType::int32, DType::int64}) {
    EXPECT_TRUE(is_integer(t)) << name(t);
    EXPECT_TRUE(is_signed(t)) << name(t);
  }
  for (DType t : {DType::uint8, DType::uint32, DType::uint64}) {
    EXPECT_TRUE(is_integer(t)) << name(t);
    EXPECT_FALSE(is_signed(t)) << name(t);
  }
  for (DType t : {DType::float16, DType::bfloat16, DType::float32, DType::float64}) {
    EXPECT_FALSE(is_integer(t)) << name(t);
    EXPECT_TRUE(is_signed(t)) << name(t);
  }
}

TEST(DType, ExactIntegerLimitsAreTwoToTheSignificandBits) {
  EXPECT_EQ(exact_integer_limit(DType::float16), 2048.0);              // 2^11
  EXPECT_EQ(exact_integer_limit(DType::bfloat16), 256.0);              // 2^8
  EXPECT_EQ(exact_integer_limit(DType::float32), 16777216.0);          // 2^24
  EXPECT_EQ(exact_integer_limit(DType::float64), 9007199254740992.0);  // 2^53
}

TEST(ReduceOp, NamesRoundTrip) {
  EXPECT_EQ(all_reduce_ops().size(), 8u);
  for (ReduceOp op : all_reduce_ops()) EXPECT_EQ(parse_reduce_op(name(op)), op) << name(op);
  EXPECT_EQ(parse_reduce_op("avg"), ReduceOp::avg);
  EXPECT_EQ(parse_reduce_op("bxor"), ReduceOp::bxor);
  EXPECT_EQ(parse_reduce_op("Sum"), std::nullopt);
  EXPECT_EQ(parse_reduce_op("mean"), std::nullopt);
}

TEST(ReduceOp, BitwiseOperatorsOnlyOnIntegers) {
  for (ReduceOp op : all_reduce_ops()) {
    const bool bitwise = op == ReduceOp::band || op == ReduceOp::bor || op == ReduceOp::bxor;
    EXPECT_EQ(is_bitwise(op), bitwise) << name(op);
    for (DType t : all_dtypes()) {
      EXPECT_EQ(defined_for(op, t), !bitwise || is_integer(t)) << name(op) << " " << name(t);
    }
  }
  EXPECT_FALSE(defined_for(ReduceOp::bxor, DType::float32));
  EXPECT_TRUE(defined_for(ReduceOp::bxor, DType::uint8));
  EXPECT_TRUE(defined_for(ReduceOp::avg, DType::bfloat16));
}

}  // namespace
}  // namespace distbench
