// One case's sizes, worked out once: nccl-tests' conventions (the call's count from the size asked, S from the count)
// and each buffer in elements and bytes.
#include "benchmarks/collective/case_geometry.hpp"

#include <gtest/gtest.h>

namespace distbench::collective {
namespace {

TEST(CaseGeometry, AnAllreduceSendsAndReceivesTheWholeSize) {
  const CaseGeometry g = case_geometry(Collective::allreduce, DType::float32, 1 << 20, 4, 1);
  EXPECT_EQ(g.asked, 1u << 20);
  EXPECT_EQ(g.elem, 4u);
  EXPECT_EQ(g.count, 262144u);
  EXPECT_EQ(g.send_bytes(), 1u << 20);
  EXPECT_EQ(g.recv_bytes(), 1u << 20);
  EXPECT_EQ(g.in_place_bytes(), 1u << 20);
  EXPECT_EQ(g.message, 1u << 20);
}

// reduce-scatter at 4 ranks: the count is each rank's block, S the whole message, the in-place result at the rank's
// own block.
TEST(CaseGeometry, AReduceScatterCountsEachRanksBlock) {
  const CaseGeometry g = case_geometry(Collective::reduce_scatter, DType::float64, 4096, 4, 2);
  EXPECT_EQ(g.count, 128u);  // 4096 B / 8 B / 4 ranks
  EXPECT_EQ(g.send_bytes(), 4096u);
  EXPECT_EQ(g.recv_bytes(), 1024u);
  EXPECT_EQ(g.in_place_bytes(), 4096u);
  EXPECT_EQ(g.shape.in_place_recv_offset, 2u * 128);
  EXPECT_EQ(g.message, 4096u);
}

// A size that does not split evenly is rounded down to whole elements on every rank, and S with it.
TEST(CaseGeometry, SizesRoundDownToWholeElementsOnEveryRank) {
  const CaseGeometry g = case_geometry(Collective::allgather, DType::float32, 1000, 3, 0);
  EXPECT_EQ(g.count, 83u);  // 250 elements / 3 ranks
  EXPECT_EQ(g.message, 83u * 3 * 4);
  EXPECT_EQ(case_geometry(Collective::allgather, DType::float32, 8, 4, 0).count, 0u);  // too small for 4 ranks
}

}  // namespace
}  // namespace distbench::collective
