// The MPI connector, groups and the communicator cache, under mpirun.
#include "tests/mpi/mpi_environment.hpp"

#include "core/error.hpp"
#include "core/groups.hpp"

#include <gtest/gtest.h>

#include <set>

namespace distbench {
namespace {

using mpitest::connector;
using mpitest::world;

TEST(MPIConnector, RanksAndNodes) {
  Connector& c = connector();
  EXPECT_GE(c.rank(), 0);
  EXPECT_LT(c.rank(), c.size());
  EXPECT_EQ(c.root_rank(), 0);
  EXPECT_FALSE(c.hostname().empty());
  // Every local rank is distinct on its node and below the node's size.
  const auto nodes = c.node_of_ranks();
  ASSERT_EQ(nodes.size(), static_cast<std::size_t>(c.size()));
  const auto local = allgather_value(c, c.local_rank());
  const auto local_sizes = allgather_value(c, c.local_size());
  const auto hosts = allgather_string(c, c.hostname());
  for (int r = 0; r < c.size(); ++r) {
    int on_node = 0;
    for (int q = 0; q < c.size(); ++q) {
      if (nodes[static_cast<std::size_t>(q)] == nodes[static_cast<std::size_t>(r)]) {
        ++on_node;
        EXPECT_EQ(hosts[static_cast<std::size_t>(q)], hosts[static_cast<std::size_t>(r)]);
        if (q != r) {
          EXPECT_NE(local[static_cast<std::size_t>(q)], local[static_cast<std::size_t>(r)]);
        }
      }
    }
    EXPECT_EQ(local_sizes[static_cast<std::size_t>(r)], on_node);
    EXPECT_LT(local[static_cast<std::size_t>(r)], on_node);
  }
}

TEST(MPIConnector, BroadcastGatherAllgather) {
  Connector& c = connector();
  std::string text = c.is_root() ? "from the root" : "";
  broadcast_string(c, text, 0);
  EXPECT_EQ(text, "from the root");

  int value = c.rank() * 10;
  broadcast_value(c, value, c.size() - 1);
  EXPECT_EQ(value, (c.size() - 1) * 10);

  // Different lengths per rank.
  std::vector<int> mine(static_cast<std::size_t>(c.rank() + 1), c.rank());
  const auto gathered = gather_vector<int>(c, mine, 0);
  if (c.is_root()) {
    ASSERT_EQ(gathered.size(), static_cast<std::size_t>(c.size()));
    for (int r = 0; r < c.size(); ++r) {
      EXPECT_EQ(gathered[static_cast<std::size_t>(r)], std::vector<int>(static_cast<std::size_t>(r + 1), r));
    }
  } else {
    EXPECT_TRUE(gathered.empty());
  }
  const auto everyone = allgather_string(c, std::string(static_cast<std::size_t>(c.rank()), 'x'));
  ASSERT_EQ(everyone.size(), static_cast<std::size_t>(c.size()));
  for (int r = 0; r < c.size(); ++r) EXPECT_EQ(everyone[static_cast<std::size_t>(r)].size(), static_cast<std::size_t>(r));
  c.barrier();
}

TEST(MPIConnector, RaiseIfAnyAgreesOnTheLowestFailingRank) {
  Connector& c = connector();
  EXPECT_NO_THROW(raise_if_any(c, nullptr));
  const Error mine = usage_error("rank " + std::to_string(c.rank()) + " objects");
  const bool fails = c.rank() == c.size() - 1;
  try {
    raise_if_any(c, fails ? &mine : nullptr);
    FAIL() << "every rank must throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_EQ(std::string(e.what()), "rank " + std::to_string(c.size() - 1) + " objects");
  }
}

TEST(World, CommunicatorsAreCachedPerPartition) {
  const int size = connector().size();
  Communicator& a = world().communicator(world_partition(size));
  Communicator& b = world().communicator(world_partition(size));
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(a.size(), size);
  EXPECT_EQ(a.rank(), connector().rank());
  Communicator& node = world().communicator(node_partition(connector().node_of_ranks()));
  EXPECT_EQ(node.size(), connector().local_size());
  EXPECT_EQ(node.rank(), connector().local_rank());
}

TEST(World, ConsecutiveAndStridedGroups) {
  const int size = connector().size();
  if (size % 2 != 0) GTEST_SKIP() << "needs an even number of ranks, have " << size;
  Communicator& pairs = world().communicator(consecutive_partition(size, 2));
  EXPECT_EQ(pairs.size(), 2);
  EXPECT_EQ(pairs.rank(), connector().rank() % 2);
  Communicator& strided = world().communicator(strided_partition(size, 2));
  EXPECT_EQ(strided.size(), size / 2);
  EXPECT_EQ(strided.rank(), connector().rank() / 2);
}

}  // namespace
}  // namespace distbench
