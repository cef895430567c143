// GoogleTest under mpirun: every rank runs every test; only rank 0 prints the usual report, other ranks print just
// their failures; the exit code is the worst over all ranks. --source=test_x.cpp runs one file's tests.
#include "tests/mpi/mpi_environment.hpp"
#include "tests/support/test_step.hpp"

#include "backends/registry.hpp"
#include "core/comm/backend.hpp"

#include "tests/mpi/rank_failure_printer.hpp"
#include "tests/support/source_filter.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <memory>
#include <string>

namespace distbench::mpitest {
namespace {

struct Shared {
  std::unique_ptr<Connector> connector;
  std::unique_ptr<World> world;
};

Shared& shared() {
  static Shared s;  // set once in main, before the tests
  return s;
}

}  // namespace

World& world() { return *shared().world; }
Connector& connector() { return *shared().connector; }

}  // namespace distbench::mpitest

int main(int argc, char** argv) {
  using namespace distbench;
  auto& s = mpitest::shared();
  s.connector = make_connector(argc, argv);
  const auto& entry = choose_backend("mpi", *s.connector);
  s.world = std::make_unique<World>(*s.connector, entry.create(*s.connector, BackendOptions{}), test_step());

  ::testing::InitGoogleTest(&argc, argv);
  mpitest::quiet_unless_rank0(s.connector->rank());
  int code = 0;
  if (const std::string problem = testing_support::narrow_to_source(argc, argv); !problem.empty()) {
    std::fprintf(stderr, "error: %s\n", problem.c_str());
    code = 2;
  } else {
    code = RUN_ALL_TESTS();
  }
  MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  s.world.reset();
  s.connector.reset();
  return code;
}
