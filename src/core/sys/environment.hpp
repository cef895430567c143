// Facts about the process's environment that reports record.
#pragma once

#include "core/sys/key_values.hpp"

#include <string>
#include <string_view>

namespace distbench {

// The variables that configure communication, sorted by name: NCCL_*, OMPI_*, UCX_*, MPICH_*, I_MPI_*, FI_*,
// SLURM_*, GLIBC_TUNABLES, MALLOC_*, CUDA_VISIBLE_DEVICES. Open MPI's and Slurm's per-process
// bookkeeping (OMPI_COMM_WORLD_*, OMPI_MCA_orte_*, SLURM_PROCID, ...) is left out: it differs per rank and says
// nothing about the configuration.
KeyValues captured_environment();
// Open MPI's and Slurm's per-process bookkeeping, left out of captured_environment (a prefix match): it differs per
// rank, node or job by construction and says nothing about the configuration.
bool is_launcher_bookkeeping(std::string_view key);
// The machine and the launcher, for the report: cpu_model, cpu_cores (online), kernel (uname), launcher (mpirun,
// srun, a PMI mpiexec, torchrun, env://, or none: from the variables the launcher sets), and the Slurm job's facts.
KeyValues machine_facts();
// The launcher, in words ("srun", "mpirun (Open MPI)", ...).
std::string launcher_name();
// The Slurm job and step this process runs in, from the variables Slurm sets (slurm.job_id, slurm.step_id,
// slurm.job_name, slurm.partition, slurm.nodelist, slurm.nodes, slurm.tasks, slurm.cluster); empty outside Slurm.
KeyValues slurm_facts();
// Now, as ISO 8601 UTC with seconds ("2026-11-22T03:04:05Z").
std::string iso_time_now();

}  // namespace distbench
