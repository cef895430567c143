// What the CLI knows before MPI starts, from the launcher's environment.
#pragma once

namespace distbench::cli {

// This process's rank as mpirun (OpenMPI, PMIx) or an MPICH launcher announces it; 0 when not launched by one.
// Used only to decide which process prints errors found before MPI is initialised.
int launcher_rank();

}  // namespace distbench::cli
