// What the CLI knows before the job forms, from the launcher's environment.
#pragma once

#include "connectors/env_settings.hpp"

#include <optional>

namespace distbench::cli {

// This process's rank as a launcher announces it — mpirun (Open MPI), a PMIx server (srun --mpi=pmix), PMI
// (MPICH's Hydra), srun (SLURM_PROCID) or torchrun (RANK, WORLD_SIZE) — when the launcher's variables hold together (a
// rank below the size, a PMIx namespace); std::nullopt when no launcher started this process, or when stray variables
// say so (OMPI_COMM_WORLD_RANK=1 exported by hand, without its size). Used only to decide which process prints an error
// found before the job forms: rank 0, or a process no launcher started.
std::optional<int> launcher_rank(const connectors::EnvLookup& env);

// Whether this process prints an error found before the job formed (every process of the job finds the same one).
bool prints_early_errors(const connectors::EnvLookup& env);

}  // namespace distbench::cli
