// ZeRO's partition arithmetic (benchmarks/zero/partition): layer sizes, padded shards, buckets and layers as segments.
#include "benchmarks/zero/partition.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace distbench::zero {
namespace {

TEST(Layers, EvenSplitWithTheRemainderFirst) {
  EXPECT_EQ(layer_sizes(10, 3), (std::vector<std::size_t>{4, 3, 3}));
  EXPECT_EQ(layer_sizes(12, 4), (std::vector<std::size_t>{3, 3, 3, 3}));
  EXPECT_EQ(layer_sizes(5, 5), (std::vector<std::size_t>{1, 1, 1, 1, 1}));
}

TEST(Layers, BadShapesAreUsageErrors) {
  for (auto [psi, layers] : {std::pair<std::size_t, std::size_t>{0, 1}, {4, 0}, {3, 4}}) {
    try {
      layer_sizes(psi, layers);
      ADD_FAILURE() << psi << " in " << layers;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
    }
  }
}

TEST(Partition, ShardsCoverEveryElementOnceWithPaddingAtTheEnd) {
  for (std::size_t n : {1U, 2U, 3U, 4U, 7U}) {
    for (std::size_t elements : {1U, 5U, 12U, 13U, 100U}) {
      const Partition part = partition(elements, n);
      EXPECT_EQ(part.shard, (elements + n - 1) / n);
      std::size_t covered = 0, next = 0;
      for (std::size_t r = 0; r < n; ++r) {
        const Range own = part.owned(r);
        EXPECT_EQ(own.begin, std::min(next, elements)) << elements << "/" << n;
        EXPECT_LE(own.size(), part.shard);
        covered += own.size();
        next = own.end;
      }
      EXPECT_EQ(covered, elements);
      EXPECT_EQ(part.padding(), part.shard * n - elements);
      EXPECT_LT(part.padding(), n);
    }
  }
  // 13 over 4: shards of 4, the last rank owns 1 element and 3 of padding
  const Partition p = partition(13, 4);
  EXPECT_EQ(p.owned(3).begin, 12U);
  EXPECT_EQ(p.owned(3).size(), 1U);
  EXPECT_EQ(p.padding(), 3U);
  // more ranks than elements: the last ranks own nothing
  EXPECT_EQ(partition(2, 4).owned(3).size(), 0U);
}

TEST(Buckets, CutTheFlatParametersAndShardEachOnItsOwn) {
  const auto b = bucket_segments(13, 5, 4);
  ASSERT_EQ(b.size(), 3U);
  EXPECT_EQ(b[2].begin, 10U);
  EXPECT_EQ(b[2].part.elements, 3U);
  EXPECT_EQ(padded_elements(b), 8U + 8U + 4U);
  EXPECT_EQ(shard_elements(b), 2U + 2U + 1U);
  EXPECT_EQ(largest_padded(b), 8U);
  EXPECT_EQ(bucket_segments(13, 0, 4).size(), 1U);   // 0: one bucket
  EXPECT_EQ(bucket_segments(13, 99, 4).size(), 1U);  // larger than Ψ: one bucket
  const auto l = layer_segments({4, 3, 3}, 2);
  EXPECT_EQ(l[1].begin, 4U);
  EXPECT_EQ(l[2].part.shard, 2U);
}

}  // namespace
}  // namespace distbench::zero
