// The MPI backend: host memory, MPI communicators split from the connector's.
#pragma once

#include "core/backend.hpp"

namespace distbench::mpi {

BackendEntry mpi_backend_entry();
// The connector of a job that an MPI launcher started (or of MPI's singleton).
std::unique_ptr<Connector> make_mpi_connector(int& argc, char**& argv);

}  // namespace distbench::mpi
