// What reports record about the environment: the variables that configure communication (and not the launcher's
// per-process bookkeeping), and the machine and launcher facts.
#include "core/sys/environment.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace distbench {
namespace {

bool has(const KeyValues& kv, const std::string& key) {
  for (const auto& [k, v] : kv) {
    if (k == key) return true;
  }
  return false;
}

std::string value(const KeyValues& kv, const std::string& key) {
  for (const auto& [k, v] : kv) {
    if (k == key) return v;
  }
  return "";
}

TEST(Environment, RecordsConfigurationNotBookkeeping) {
  for (const char* name : {"NCCL_ALGO", "I_MPI_FABRICS", "FI_PROVIDER", "MPICH_ASYNC_PROGRESS", "SLURM_JOB_ID",
                           "GLIBC_TUNABLES", "MALLOC_ARENA_MAX", "UCX_TLS", "OMPI_MCA_btl"}) {
    setenv(name, "x", 1);
  }
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "OMPI_MCA_ess_base_jobid", "HOME_NOT_RECORDED"}) {
    setenv(name, "y", 1);
  }
  const KeyValues kv = captured_environment();
  for (const char* name : {"NCCL_ALGO", "I_MPI_FABRICS", "FI_PROVIDER", "MPICH_ASYNC_PROGRESS", "SLURM_JOB_ID",
                           "GLIBC_TUNABLES", "MALLOC_ARENA_MAX", "UCX_TLS", "OMPI_MCA_btl"}) {
    EXPECT_TRUE(has(kv, name)) << name;
  }
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "OMPI_MCA_ess_base_jobid", "HOME_NOT_RECORDED"}) {
    EXPECT_FALSE(has(kv, name)) << name;
  }
  EXPECT_TRUE(std::is_sorted(kv.begin(), kv.end()));
}

TEST(Environment, MachineFactsNameTheCpuKernelAndLauncher) {
  for (const char* name : {"SLURM_STEP_ID", "SLURM_STEPID", "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMIX_RANK"}) {
    unsetenv(name);
  }
  KeyValues facts = machine_facts();
  EXPECT_FALSE(value(facts, "cpu_model").empty());
  EXPECT_GT(std::stoi(value(facts, "cpu_cores")), 0);
  EXPECT_EQ(value(facts, "kernel").rfind("Linux ", 0), 0u) << value(facts, "kernel");
  EXPECT_EQ(value(facts, "launcher"), "none (singleton)");
  setenv("PMI_RANK", "0", 1);
  EXPECT_EQ(value(machine_facts(), "launcher"), "mpiexec (PMI)");
  setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  EXPECT_EQ(value(machine_facts(), "launcher"), "mpirun (Open MPI)");
  setenv("SLURM_STEP_ID", "0", 1);
  EXPECT_EQ(value(machine_facts(), "launcher"), "srun");
}

}  // namespace
}  // namespace distbench
