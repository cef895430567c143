// Collective names, NCCL's buffer shapes, nccl-tests' size convention and bus bandwidth factors.
#include "core/device/collective.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>
#include <string>

namespace distbench {
namespace {

TEST(Collective, NamesRoundTrip) {
  std::set<std::string> names;
  for (Collective c : all_collectives()) {
    names.insert(std::string(name(c)));
    EXPECT_EQ(parse_collective(name(c)), c) << name(c);
  }
  EXPECT_EQ(names.size(), kCollectiveCount);  // every name distinct
  EXPECT_EQ(parse_collective("reduce-scatter"), Collective::reduce_scatter);
  EXPECT_EQ(parse_collective("sendrecv"), Collective::sendrecv);
  EXPECT_EQ(parse_collective("reduce_scatter"), std::nullopt);
  EXPECT_EQ(parse_collective("AllReduce"), std::nullopt);
  EXPECT_EQ(parse_collective(""), std::nullopt);
  EXPECT_EQ(name(Placement::in_place), "in-place");
  EXPECT_EQ(name(Placement::out_of_place), "out-of-place");
}

TEST(Collective, ReductionsAndRooted) {
  EXPECT_TRUE(is_reduction(Collective::allreduce));
  EXPECT_TRUE(is_reduction(Collective::reduce_scatter));
  EXPECT_TRUE(is_reduction(Collective::reduce));
  EXPECT_FALSE(is_reduction(Collective::allgather));
  EXPECT_FALSE(is_reduction(Collective::sendrecv));
  for (Collective c : {Collective::broadcast, Collective::reduce, Collective::gather, Collective::scatter}) {
    EXPECT_TRUE(is_rooted(c)) << name(c);
  }
  for (Collective c : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather, Collective::alltoall,
                       Collective::sendrecv}) {
    EXPECT_FALSE(is_rooted(c)) << name(c);
  }
}

// nccl-tests, doc/PERFORMANCE.md: busbw = algbw * factor, with
//   AllReduce 2(n-1)/n; ReduceScatter, AllGather (n-1)/n; Broadcast, Reduce 1;
// and in its sources AlltoAll, Gather, Scatter (n-1)/n; SendRecv 1.
TEST(Collective, BusFactorsAreNcclTestsDefinitions) {
  for (int n : {1, 2, 4, 8}) {
    const double dn = n;
    EXPECT_DOUBLE_EQ(bus_factor(Collective::allreduce, n), 2 * (dn - 1) / dn) << n;
    for (Collective c : {Collective::reduce_scatter, Collective::allgather, Collective::alltoall, Collective::gather,
                         Collective::scatter}) {
      EXPECT_DOUBLE_EQ(bus_factor(c, n), (dn - 1) / dn) << name(c) << " n=" << n;
    }
    for (Collective c : {Collective::broadcast, Collective::reduce, Collective::sendrecv}) {
      EXPECT_DOUBLE_EQ(bus_factor(c, n), 1.0) << name(c) << " n=" << n;
    }
  }
  EXPECT_DOUBLE_EQ(bus_factor(Collective::allreduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::allreduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::allgather, 4), 0.75);
}

struct Shape {
  std::size_t send, recv, send_offset, recv_offset;
};

void expect_shape(Collective c, int rank, Shape want) {
  const BufferShape got = buffer_shape(c, 5, 4, rank);  // count 5, 4 ranks
  EXPECT_EQ(got.send_count, want.send) << name(c) << " rank " << rank;
  EXPECT_EQ(got.recv_count, want.recv) << name(c) << " rank " << rank;
  EXPECT_EQ(got.in_place_send_offset, want.send_offset) << name(c) << " rank " << rank;
  EXPECT_EQ(got.in_place_recv_offset, want.recv_offset) << name(c) << " rank " << rank;
}

TEST(Collective, BufferShapesAtRanksZeroAndTwoOfFour) {
  for (int r : {0, 2}) {
    for (Collective c : {Collective::allreduce, Collective::broadcast, Collective::reduce, Collective::sendrecv}) {
      expect_shape(c, r, {5, 5, 0, 0});
    }
    expect_shape(Collective::alltoall, r, {20, 20, 0, 0});
  }
  // reduce-scatter and scatter: the result is this rank's slice of the full buffer
  expect_shape(Collective::reduce_scatter, 0, {20, 5, 0, 0});
  expect_shape(Collective::reduce_scatter, 2, {20, 5, 0, 10});
  expect_shape(Collective::scatter, 0, {20, 5, 0, 0});
  expect_shape(Collective::scatter, 2, {20, 5, 0, 10});
  // allgather and gather: the input is this rank's slice of the full buffer
  expect_shape(Collective::allgather, 0, {5, 20, 0, 0});
  expect_shape(Collective::allgather, 2, {5, 20, 10, 0});
  expect_shape(Collective::gather, 0, {5, 20, 0, 0});
  expect_shape(Collective::gather, 2, {5, 20, 10, 0});
}

TEST(Collective, MessageElementsAndCallCount) {
  // 10 elements at 4 ranks: partitioned collectives round down to count 2, so the case moves S = 8 elements.
  for (Collective c : {Collective::reduce_scatter, Collective::allgather, Collective::alltoall, Collective::gather,
                       Collective::scatter}) {
    EXPECT_EQ(call_count(c, 10, 4), 2u) << name(c);
    EXPECT_EQ(message_elements(c, 2, 4), 8u) << name(c);
    EXPECT_EQ(call_count(c, 3, 4), 0u) << name(c);
    EXPECT_EQ(call_count(c, 12, 4), 3u) << name(c);
  }
  for (Collective c : {Collective::allreduce, Collective::broadcast, Collective::reduce, Collective::sendrecv}) {
    EXPECT_EQ(call_count(c, 10, 4), 10u) << name(c);
    EXPECT_EQ(message_elements(c, 10, 4), 10u) << name(c);
  }
  for (Collective c : all_collectives()) {
    EXPECT_EQ(message_elements(c, call_count(c, 1024, 8), 8), 1024u) << name(c);
    EXPECT_EQ(call_count(c, 7, 1), 7u) << name(c);
  }
}

}  // namespace
}  // namespace distbench

namespace distbench {
namespace {

// One table entry per collective: every collective has one, found by its id, named uniquely, and the flags agree
// with the shapes (a partitioned collective's message is count * n on one side of the call).
TEST(CollectiveTraits, OneConsistentEntryPerCollective) {
  std::vector<std::string_view> names;
  for (Collective c : all_collectives()) {
    const CollectiveTraits& t = traits(c);
    EXPECT_EQ(t.id, c);
    EXPECT_FALSE(t.description.empty()) << t.name;
    EXPECT_EQ(parse_collective(t.name), c);
    EXPECT_EQ(std::count(names.begin(), names.end(), t.name), 0) << t.name;
    names.push_back(t.name);
    const BufferShape shape = buffer_shape(c, 5, 4, 1);
    const std::size_t larger = std::max(shape.send_count, shape.recv_count);
    EXPECT_EQ(larger, t.partitioned ? 20u : 5u) << t.name;
    EXPECT_EQ(message_elements(c, 5, 4), larger) << t.name;
  }
  EXPECT_EQ(names.size(), kCollectiveCount);
  EXPECT_EQ(all_collectives().size(), kCollectiveCount);
}

// The check every table of per-collective facts passes at compile time (a backend's calls, the model's formulas):
// it refuses a table with a row missing, one out of order, and one of the wrong size.
struct FactRow {
  Collective id;
};
constexpr std::array<FactRow, kCollectiveCount> rows_without(std::size_t missing) {
  std::array<FactRow, kCollectiveCount> table{};
  for (std::size_t i = 0, j = 0; i < kCollectiveCount; ++i) {
    if (i != missing) table[j++] = {static_cast<Collective>(i)};
  }
  return table;
}
TEST(CollectiveTraits, TablesAreCheckedForOneRowPerCollective) {
  std::array<FactRow, kCollectiveCount> all{};
  for (std::size_t i = 0; i < kCollectiveCount; ++i) all[i] = {static_cast<Collective>(i)};
  EXPECT_TRUE(one_row_per_collective(all));
  static_assert(one_row_per_collective(rows_without(kCollectiveCount)));  // nothing left out
  for (std::size_t missing = 0; missing < kCollectiveCount; ++missing) {
    EXPECT_FALSE(one_row_per_collective(rows_without(missing))) << name(static_cast<Collective>(missing));
  }
  std::array<FactRow, kCollectiveCount> swapped = all;
  std::swap(swapped[1], swapped[2]);
  EXPECT_FALSE(one_row_per_collective(swapped));
  EXPECT_FALSE(one_row_per_collective(std::array<FactRow, kCollectiveCount - 1>{}));
}

}  // namespace
}  // namespace distbench
