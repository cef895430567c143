// Which connector forms the job: --launcher auto|mpi|env|none, and what `auto` means here.
//
// auto: an MPI launcher's variables (mpirun, srun --mpi=pmix, Hydra) mean MPI; else torchrun's RANK and WORLD_SIZE
// mean env://; else MPI where the build has it (a process alone is MPI's singleton), or none (this process alone).
// In a build without MPI, a task srun started (with no MPI launcher's variables but srun's own PMIx or PMI ones)
// means env:// from Slurm's variables (slurm_settings.hpp).
#pragma once

#include "connectors/env_settings.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace distbench::connectors {

inline constexpr std::string_view kLauncherChoices[] = {"auto", "mpi", "env", "none"};

// The MPI launcher's variable that is set ("OMPI_COMM_WORLD_SIZE=4"), or nullopt when none is.
std::optional<std::string> mpi_launch_variable(const EnvLookup& env);

// "mpi", "env" or "none" for what was asked; throws Error(unavailable) when MPI is asked for (or an MPI launcher
// started this process) in a build without it, usage_error for an unknown choice or a Slurm step that srun started
// without PMIx (MPI could not start there).
std::string resolve_launcher(std::string_view requested, const EnvLookup& env, bool have_mpi);

// The settings of an env:// job: Slurm's variables in a task srun started (srun_started_this_task) where neither RANK
// nor WORLD_SIZE is set (read_slurm_settings), else torchrun's (read_env_settings).
EnvSettings read_launch_settings(const EnvLookup& env);

}  // namespace distbench::connectors
