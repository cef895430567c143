// Partitions of the world into groups: the world, consecutive (model-parallel) groups, strided (data-parallel)
// groups, and one group per node.
#include "core/comm/groups.hpp"

#include "core/error.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace distbench {
namespace {

using ::testing::HasSubstr;
using Groups = std::vector<std::vector<int>>;

std::string usage_message(int world_size, int group_size) {
  try {
    consecutive_partition(world_size, group_size);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  ADD_FAILURE() << "no usage_error for " << world_size << " ranks in groups of " << group_size;
  return {};
}

TEST(Groups, World) {
  const Partition p = world_partition(4);
  EXPECT_EQ(p.groups, (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(p.label, "world");
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(p.group_of(r), 0);
    EXPECT_EQ(p.rank_in_group(r), r);
  }
  EXPECT_EQ(world_partition(1).groups, (Groups{{0}}));
}

TEST(Groups, Consecutive) {
  const Partition p = consecutive_partition(8, 2);
  EXPECT_EQ(p.groups, (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(p.label, "group-size 2");
  EXPECT_EQ(p.group_of(5), 2);
  EXPECT_EQ(p.rank_in_group(5), 1);
  EXPECT_EQ(p.rank_in_group(6), 0);
  EXPECT_EQ(consecutive_partition(6, 6), world_partition(6));
  EXPECT_EQ(consecutive_partition(3, 1).groups, (Groups{{0}, {1}, {2}}));
}

TEST(Groups, Strided) {
  const Partition p = strided_partition(8, 2);
  EXPECT_EQ(p.groups, (Groups{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  EXPECT_EQ(p.group_of(5), 1);
  EXPECT_EQ(p.rank_in_group(5), 2);
  EXPECT_EQ(p.group_of(4), 0);
  EXPECT_EQ(p.rank_in_group(4), 2);
  EXPECT_EQ(strided_partition(6, 3).groups, (Groups{{0, 3}, {1, 4}, {2, 5}}));
}

TEST(Groups, StridedGroupsCutAcrossConsecutiveOnes) {
  // Every strided group holds exactly one member of each consecutive group, at the same position.
  const Partition model = consecutive_partition(12, 3);
  const Partition data = strided_partition(12, 3);
  for (int r = 0; r < 12; ++r) {
    EXPECT_EQ(data.group_of(r), model.rank_in_group(r));
    EXPECT_EQ(data.rank_in_group(r), model.group_of(r));
  }
}

TEST(Groups, Node) {
  EXPECT_EQ(node_partition({0, 0, 1, 1}).groups, (Groups{{0, 1}, {2, 3}}));
  const Partition p = node_partition({0, 1, 0, 1, 2});
  EXPECT_EQ(p.groups, (Groups{{0, 2}, {1, 3}, {4}}));
  EXPECT_EQ(p.label, "node");
  EXPECT_EQ(p.group_of(3), 1);
  EXPECT_EQ(p.rank_in_group(3), 1);
}

TEST(Groups, GroupSizeMustDivideTheWorld) {
  const std::string message = usage_message(6, 4);
  EXPECT_THAT(message, HasSubstr("4"));
  EXPECT_THAT(message, HasSubstr("6"));
  EXPECT_THAT(message, HasSubstr("does not divide"));
  EXPECT_THAT(usage_message(4, 0), HasSubstr("0"));
  EXPECT_THAT(usage_message(4, 8), HasSubstr("8"));
  EXPECT_THROW(strided_partition(6, 4), Error);
}

TEST(Groups, RankOutsideThePartitionIsAnInternalFailure) {
  const Partition p = world_partition(2);
  try {
    p.group_of(5);
    ADD_FAILURE() << "no error for a rank outside the partition";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::failure);
  }
}

}  // namespace
}  // namespace distbench
