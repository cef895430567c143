// The MPI backend: host memory, MPI communicators split from the connector's.
#pragma once

#include "core/comm/backend.hpp"

#include <memory>
#include <string_view>

namespace distbench::mpi {

BackendEntry mpi_backend_entry();
// The connector of a job that an MPI launcher started (or of MPI's singleton), at the thread level named
// (mpi_thread_level.hpp).
std::unique_ptr<Connector> make_mpi_connector(int& argc, char**& argv, std::string_view thread_level);

}  // namespace distbench::mpi
