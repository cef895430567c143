// Mapping processes (one per connector rank) and their GPUs onto NCCL group ranks (no device needed).
#include "backends/nccl/rank_layout.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>

namespace distbench::nccl {
namespace {

ExitCode code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return ExitCode::ok;
}

TEST(RankLayout, OneGpuPerProcessKeepsTheProcessRanks) {
  const auto layout = rank_layout(world_partition(4), 2, 1);
  EXPECT_EQ(layout.nranks, 4);
  EXPECT_EQ(layout.first_rank, 2);
  EXPECT_EQ(layout.parts, 1);
  EXPECT_EQ(layout.root_process, 0);
}

TEST(RankLayout, SeveralGpusPerProcessTakeConsecutiveRanks) {
  // -g 2 on 4 processes: process p drives ranks 2p and 2p+1 of 8.
  const auto layout = rank_layout(world_partition(4), 2, 2);
  EXPECT_EQ(layout.nranks, 8);
  EXPECT_EQ(layout.first_rank, 4);
  EXPECT_EQ(layout.parts, 2);
}

TEST(RankLayout, GroupsOtherThanTheWorldAreNumberedFromTheirFirstProcess) {
  const auto consecutive = rank_layout(consecutive_partition(4, 2), 3, 2);  // group {2, 3}
  EXPECT_EQ(consecutive.nranks, 4);
  EXPECT_EQ(consecutive.first_rank, 2);
  EXPECT_EQ(consecutive.root_process, 2);
  const auto strided = rank_layout(strided_partition(6, 3), 4, 1);  // group {1, 4}
  EXPECT_EQ(strided.nranks, 2);
  EXPECT_EQ(strided.first_rank, 1);
  EXPECT_EQ(strided.root_process, 1);
}

TEST(RankLayout, BadInputIsAUsageError) {
  EXPECT_EQ(code_of([] { rank_layout(world_partition(2), 0, 0); }), ExitCode::usage);
  EXPECT_EQ(code_of([] { rank_layout(world_partition(2), 5, 1); }), ExitCode::usage);
}

TEST(ChooseDevices, LocalRanksTakeTheNextGpusInTurn) {
  EXPECT_EQ(choose_devices(0, 1, -1, 4), (std::vector<int>{0}));
  EXPECT_EQ(choose_devices(3, 1, -1, 4), (std::vector<int>{3}));
  EXPECT_EQ(choose_devices(1, 2, -1, 4), (std::vector<int>{2, 3}));
}

TEST(ChooseDevices, MoreLocalRanksThanGpusWrapAround) {
  EXPECT_EQ(choose_devices(2, 1, -1, 2), (std::vector<int>{0}));
  EXPECT_EQ(choose_devices(1, 2, -1, 3), (std::vector<int>{2, 0}));
}

TEST(ChooseDevices, AnExplicitIndexStartsThere) { EXPECT_EQ(choose_devices(5, 2, 1, 4), (std::vector<int>{1, 2})); }

TEST(ChooseDevices, ImpossibleRequestsAreRefused) {
  EXPECT_EQ(code_of([] { choose_devices(0, 3, -1, 2); }), ExitCode::usage);  // one process, a GPU twice
  EXPECT_EQ(code_of([] { choose_devices(0, 2, 3, 4); }), ExitCode::usage);   // devices 3 and 4 of 0..3
  EXPECT_EQ(code_of([] { choose_devices(0, 1, -1, 0); }), ExitCode::unavailable);
}

}  // namespace
}  // namespace distbench::nccl
