// The MPI world shared by the tests of one MPI test program (created in main, before any test runs).
#pragma once

#include "core/comm/world.hpp"

namespace distbench::mpitest {

World& world();
Connector& connector();

}  // namespace distbench::mpitest
