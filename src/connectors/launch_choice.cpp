#include "connectors/launch_choice.hpp"

#include "connectors/slurm_settings.hpp"
#include "core/error.hpp"

#include <algorithm>

namespace distbench::connectors {
namespace {

// srun's own launch: a Slurm step whose MPI variables, if any, are those of srun's PMIx or PMI plugin (the same rank
// and size as srun's), not of an MPI launcher started inside the allocation (whose tasks inherit its daemons' Slurm
// variables).
bool srun_launched(const EnvLookup& env) {
  if (!in_slurm_step(env) || env("OMPI_COMM_WORLD_SIZE")) return false;
  const auto agrees = [&](const char* name, const char* slurm_name) {
    const auto value = env(name);
    return !value || value == env(slurm_name);
  };
  return agrees("PMIX_RANK", "SLURM_PROCID") && agrees("PMI_RANK", "SLURM_PROCID") &&
         agrees("PMI_SIZE", "SLURM_STEP_NUM_TASKS");
}

}  // namespace

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
  if (requested == "auto" && !have_mpi && srun_launched(env)) return "env";  // from Slurm's variables
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
  if (!env("RANK") && !env("WORLD_SIZE") && in_slurm_step(env)) return read_slurm_settings(env);
  return read_env_settings(env);
}

}  // namespace distbench::connectors
