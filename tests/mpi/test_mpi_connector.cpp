// The MPI connector (the contract every connector meets), groups and the communicator cache, under mpirun.
#include "tests/mpi/mpi_environment.hpp"
#include "tests/support/connector_contract.hpp"

#include "core/comm/groups.hpp"
#include "core/error.hpp"
#include "tests/support/test_step.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

namespace distbench {

Connector& contract::connector() { return mpitest::connector(); }

namespace {

using mpitest::world;

TEST(World, CommunicatorsAreCachedPerPartition) {
  const int size = contract::connector().size();
  Communicator& a = world().communicator(world_partition(size), test_step());
  Communicator& b = world().communicator(world_partition(size), test_step());
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(a.size(), size);
  EXPECT_EQ(a.rank(), contract::connector().rank());
  Communicator& node = world().communicator(node_partition(contract::connector().node_of_ranks()), test_step());
  EXPECT_EQ(node.size(), contract::connector().local_size());
  EXPECT_EQ(node.rank(), contract::connector().local_rank());
}

TEST(World, ConsecutiveAndStridedGroups) {
  const int size = contract::connector().size();
  if (size % 2 != 0) GTEST_SKIP() << "needs an even number of ranks, have " << size;
  Communicator& pairs = world().communicator(consecutive_partition(size, 2), test_step());
  EXPECT_EQ(pairs.size(), 2);
  EXPECT_EQ(pairs.rank(), contract::connector().rank() % 2);
  Communicator& strided = world().communicator(strided_partition(size, 2), test_step());
  EXPECT_EQ(strided.size(), size / 2);
  EXPECT_EQ(strided.rank(), contract::connector().rank() / 2);
}

}  // namespace
}  // namespace distbench
