#include "connectors/launch_choice.hpp"

#include "connectors/slurm_settings.hpp"
#include "core/error.hpp"

#include <algorithm>

namespace distbench::connectors {

std::optional<std::string> mpi_launch_variable(const EnvLookup& env) {
  // Open MPI's mpirun; PMIx servers (srun --mpi=pmix, prterun); PMI-1/2 (MPICH's Hydra, srun --mpi=pmi2).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (const auto value = env(name)) return fmt::format("{}={}", name, value->substr(0, 20));
  }
  return std::nullopt;
}

std::string resolve_launcher(std::string_view requested, const EnvLookup& env, bool have_mpi) {
  if (std::find(std::begin(kLauncherChoices), std::end(kLauncherChoices), requested) == std::end(kLauncherChoices)) {
    throw usage_error(fmt::format("--launcher {}: pick auto, mpi, env or none", requested));
  }
  if (requested == "auto" && !have_mpi && srun_started_this_task(env)) return "env";  // from Slurm's variables
  const auto mpi_variable = mpi_launch_variable(env);
  if (requested == "mpi" || (requested == "auto" && mpi_variable)) {
    if (!have_mpi) {
      throw Error(ExitCode::unavailable,
                  requested == "mpi"
                      ? std::string("--launcher mpi: this distbench was built without MPI (-Dmpi=disabled); start it "
                                    "with torchrun-style variables (--launcher env) or rebuild with MPI")
                      : fmt::format("an MPI launcher started this process ({}) but this distbench was built without "
                                    "MPI (-Dmpi=disabled); start it with torchrun-style variables "
                                    "(MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE) or rebuild with MPI",
                                    *mpi_variable));
    }
    return "mpi";
  }
  if (requested == "env" || (requested == "auto" && env_launch_requested(env))) return "env";
  if (requested == "none") return "none";
  if (have_mpi && env("SLURM_STEP_ID")) {
    // srun started this task with no MPI plugin (--mpi=none, or pmi2, which Debian's Open MPI lacks): MPI_Init would
    // die with a page of text; say how to start it instead.
    throw usage_error(
        fmt::format("srun started this task without PMIx (SLURM_STEP_ID={}, no PMIX_RANK): Open MPI joins a Slurm step "
                    "through PMIx; start it with 'srun --mpi=pmix ...' (or set MpiDefault=pmix in slurm.conf), or "
                    "form the job over TCP from Slurm's variables with '--launcher env' (the NCCL backend and info "
                    "run so, the MPI backend does not)",
                    env("SLURM_STEP_ID")->substr(0, 20)));
  }
  return have_mpi ? "mpi" : "none";
}

EnvSettings read_launch_settings(const EnvLookup& env) {
  if (!env("RANK") && !env("WORLD_SIZE") && srun_started_this_task(env)) return read_slurm_settings(env);
  return read_env_settings(env);
}

}  // namespace distbench::connectors
