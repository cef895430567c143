// TorchShard's operations (benchmarks/tp/tp_ops): the primitive each pass runs, its collective, and the operations'
// input values (exact small integers).
#include "benchmarks/tp/tp_ops.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>

namespace distbench::tp {
namespace {

TEST(TpOps, EachPassRunsTorchShardsPrimitive) {
  EXPECT_EQ(primitive(Op::scatter, Pass::forward), Primitive::slice);
  EXPECT_EQ(primitive(Op::scatter, Pass::backward), Primitive::allgather);
  EXPECT_EQ(primitive(Op::gather, Pass::forward), Primitive::allgather);
  EXPECT_EQ(primitive(Op::gather, Pass::backward), Primitive::slice);
  EXPECT_EQ(primitive(Op::reduce, Pass::forward), Primitive::allreduce);
  EXPECT_EQ(primitive(Op::reduce, Pass::backward), Primitive::identity);
  EXPECT_EQ(primitive(Op::copy, Pass::forward), Primitive::identity);
  EXPECT_EQ(primitive(Op::copy, Pass::backward), Primitive::allreduce);
  EXPECT_EQ(parse_op("copy"), Op::copy);
  EXPECT_FALSE(parse_op("split").has_value());
  // busbw comes from the collective's table entry: allgather (G-1)/G, allreduce 2(G-1)/G (nccl-tests' definitions)
  EXPECT_EQ(collective_of(Primitive::allgather), Collective::allgather);
  EXPECT_EQ(collective_of(Primitive::allreduce), Collective::allreduce);
  EXPECT_FALSE(collective_of(Primitive::slice).has_value());
  EXPECT_FALSE(collective_of(Primitive::identity).has_value());
}

TEST(TpOps, InputsAreSmallIntegersSoSumsAreExactInEveryType) {
  for (std::size_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(full_value(i), std::round(full_value(i)));
    EXPECT_LE(std::abs(full_value(i)), 5.0f);
    for (int g = 0; g < 8; ++g) EXPECT_LE(std::abs(summand(i, g)), 3.0f);
  }
}

}  // namespace
}  // namespace distbench::tp
