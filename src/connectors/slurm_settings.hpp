// The env:// settings of a task that srun started, from Slurm's own variables: a Slurm step forms its job over TCP
// with no MPI and no PMIx (srun --mpi=none, or a build without MPI), and no wrapper script that exports torchrun's.
//
//   RANK        <- SLURM_PROCID
//   WORLD_SIZE  <- SLURM_STEP_NUM_TASKS (else SLURM_NTASKS)
//   MASTER_ADDR <- the first host of SLURM_STEP_NODELIST (else SLURM_JOB_NODELIST): task 0's node for Slurm's
//                  block, cyclic and plane distributions; where task 0 is elsewhere (-m arbitrary), rank 0 says so
//   MASTER_PORT <- kSlurmPortBase + 10 x (job id mod 1000) + (step id mod 10): two steps of a job (up to 10 at
//                  once) and two jobs on a node (up to 1000 apart in id) differ
//   LOCAL_RANK, LOCAL_WORLD_SIZE <- SLURM_LOCALID, and this node's count in SLURM_STEP_TASKS_PER_NODE ("2(x3),1")
//                  at SLURM_NODEID; where those do not add up, the hosts' names decide
//
// torchrun's MASTER_ADDR, MASTER_PORT (or DISTBENCH_MASTER_PORT) and LOCAL_RANK with LOCAL_WORLD_SIZE, where set,
// win over what Slurm's give; the job secret is read as for torchrun's (srun passes the environment on, so a
// DISTBENCH_JOB_SECRET_FILE exported before srun reaches every task). A task with RANK or WORLD_SIZE set is
// torchrun's (read_env_settings), whoever started it.
#pragma once

#include "connectors/env_settings.hpp"

#include <cstdint>

namespace distbench::connectors {

// The lowest port a step's rank 0 listens on when no port is given; the highest is kSlurmPortBase + 9,999 (below
// Linux's ephemeral ports, 32768 on).
inline constexpr int kSlurmPortBase = 20000;

// Whether this process runs in a Slurm step: SLURM_STEP_ID and SLURM_PROCID are set.
bool in_slurm_step(const EnvLookup& env);

// Whether srun itself started this process as a task of its step: in a Slurm step, and the MPI variables, if any,
// are those of srun's PMIx or PMI plugin (the same rank and size as srun's), not an MPI launcher's inside the
// allocation (mpirun, whose ranks inherit its daemons' Slurm variables: OMPI_COMM_WORLD_SIZE, or another rank).
bool srun_started_this_task(const EnvLookup& env);

// kSlurmPortBase + 10 x (job_id mod 1000) + (step_id mod 10).
int slurm_step_port(std::uint64_t job_id, std::uint64_t step_id);

// The settings of this task from Slurm's variables (and torchrun's where set), checked; throws usage_error naming
// the variable that is missing or wrong and what to set.
EnvSettings read_slurm_settings(const EnvLookup& env);

}  // namespace distbench::connectors
