// Shard arithmetic of the tensor-parallel benchmark (benchmarks/tp/shard): shapes, dims, blocks.
#include "benchmarks/tp/shard.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace distbench::tp {
namespace {

TEST(TpShard, ParsesShapesAndRefusesTheRest) {
  EXPECT_EQ(parse_shape("4096x1024", "--shape"), (Shape{4096, 1024}));
  EXPECT_EQ(parse_shape("3X5", "--shape"), (Shape{3, 5}));
  EXPECT_EQ(shape_text({3, 5}), "3x5");
  for (const char* bad : {"", "4096", "x4", "4x", "0x4", "4x0", "-1x4", "4x4x4", "4 x4", "ax4"}) {
    EXPECT_THROW(parse_shape(bad, "--shape"), Error) << bad;
  }
}

TEST(TpShard, DimsAreRowsOrColumns) {
  EXPECT_EQ(normalize_dim(0), 0);
  EXPECT_EQ(normalize_dim(1), 1);
  EXPECT_EQ(normalize_dim(-1), 1);
  EXPECT_THROW(normalize_dim(2), Error);
  EXPECT_THROW(normalize_dim(-2), Error);
}

TEST(TpShard, BlocksTileTheTensorOnce) {
  const Shape full{6, 8};
  for (int dim : {0, 1}) {
    for (int parts : {1, 2}) {
      const ShardLayout l = shard_layout(full, dim, parts);
      EXPECT_EQ(l.shard.elements() * static_cast<std::size_t>(parts), full.elements());
      std::set<std::size_t> seen;
      for (int g = 0; g < parts; ++g) {
        for (std::size_t r = 0; r < l.shard.rows; ++r) {
          for (std::size_t c = 0; c < l.shard.cols; ++c) seen.insert(l.block_offset(g) + r * full.cols + c);
        }
      }
      EXPECT_EQ(seen.size(), full.elements()) << "dim " << dim << ", parts " << parts;
    }
  }
  EXPECT_EQ(shard_layout(full, 1, 2).block_offset(1), 4U);   // the right half's first column
  EXPECT_EQ(shard_layout(full, 0, 2).block_offset(1), 24U);  // the lower half's first row
  EXPECT_THROW(shard_layout(full, 0, 4), Error);             // 6 rows over 4
  EXPECT_THROW(shard_layout(full, 1, 3), Error);             // 8 columns over 3
  EXPECT_NO_THROW(shard_layout(full, 0, 3));
}

}  // namespace
}  // namespace distbench::tp
