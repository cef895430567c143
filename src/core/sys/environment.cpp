#include "core/sys/environment.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string_view>
#include <utility>
#include <vector>

extern char** environ;  // POSIX

namespace distbench {
namespace {

bool recorded(std::string_view key) {
  constexpr std::string_view kPrefixes[] = {"NCCL_", "OMPI_",  "UCX_",    "MPICH_",        "I_MPI_",
                                            "FI_",   "SLURM_", "MASTER_", "TORCHELASTIC_", "DISTBENCH_"};
  if (key == "CUDA_VISIBLE_DEVICES" || key == "GLIBC_TUNABLES" || key.starts_with("MALLOC_") || key == "WORLD_SIZE" ||
      key == "LOCAL_WORLD_SIZE") {
    return true;
  }
  const bool wanted =
      std::any_of(std::begin(kPrefixes), std::end(kPrefixes), [&](std::string_view p) { return key.starts_with(p); });
  return wanted && !is_launcher_bookkeeping(key);
}

}  // namespace

bool is_launcher_bookkeeping(std::string_view key) {
  constexpr std::string_view kBookkeeping[] = {"OMPI_COMM_WORLD_",
                                               "OMPI_MCA_orte_",
                                               "OMPI_MCA_ess",
                                               "OMPI_MCA_pmix",
                                               "OMPI_FILE_LOCATION",
                                               "OMPI_UNIVERSE_SIZE",
                                               "OMPI_FIRST_RANKS",
                                               "OMPI_APP_CTX_",
                                               "OMPI_ARGV",
                                               "OMPI_COMMAND",
                                               "OMPI_MCA_initial_wdir",
                                               "OMPI_NUM_APP_CTX",
                                               "OMPI_MCA_mpi_oversubscribe",
                                               "OMPI_MCA_shmem_RUNTIME_QUERY_hint",
                                               "SLURM_PROCID",
                                               "SLURM_LOCALID",
                                               "SLURM_TASK_PID",
                                               "SLURM_NODEID",
                                               "SLURM_GTIDS",
                                               "SLURM_TOPOLOGY_ADDR",
                                               "SLURM_STEP_ID",
                                               "SLURM_STEPID",
                                               "SLURM_LAUNCH_NODE_IPADDR",
                                               "SLURM_SRUN_COMM_PORT"};
  return std::any_of(std::begin(kBookkeeping), std::end(kBookkeeping),
                     [&](std::string_view p) { return key.starts_with(p); });
}

KeyValues captured_environment() {
  KeyValues out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    const auto key = text.substr(0, eq);
    if (recorded(key)) out.emplace_back(std::string(key), std::string(text.substr(eq + 1)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

}  // namespace

std::string launcher_name() {
  if (std::getenv("SLURM_STEP_ID") != nullptr || std::getenv("SLURM_STEPID") != nullptr) return "srun";
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) return "mpirun (Open MPI)";
  // MPICH's Hydra sets PMI_RANK; not PMIX_RANK, which Open MPI's singleton start sets for itself.
  if (std::getenv("PMI_RANK") != nullptr) return "mpiexec (PMI)";
  if (std::getenv("TORCHELASTIC_RUN_ID") != nullptr) return "torchrun (env://)";
  if (std::getenv("RANK") != nullptr && std::getenv("WORLD_SIZE") != nullptr) return "env:// (RANK, WORLD_SIZE)";
  return "none (singleton)";
}

KeyValues slurm_facts() {
  KeyValues out;
  if (std::getenv("SLURM_JOB_ID") == nullptr) return out;
  // Step-level variables first (srun sets them for its step), the job's otherwise (a batch script).
  const std::pair<const char*, std::vector<const char*>> facts[] = {
      {"slurm.job_id", {"SLURM_JOB_ID"}},
      {"slurm.step_id", {"SLURM_STEP_ID", "SLURM_STEPID"}},
      {"slurm.job_name", {"SLURM_JOB_NAME"}},
      {"slurm.partition", {"SLURM_JOB_PARTITION"}},
      {"slurm.nodelist", {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"}},
      {"slurm.nodes", {"SLURM_STEP_NUM_NODES", "SLURM_NNODES", "SLURM_JOB_NUM_NODES"}},
      {"slurm.tasks", {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"}},
      {"slurm.cluster", {"SLURM_CLUSTER_NAME"}},
  };
  for (const auto& [key, names] : facts) {
    for (const char* name : names) {
      if (const char* value = std::getenv(name)) {
        out.emplace_back(key, value);
        break;
      }
    }
  }
  return out;
}

KeyValues machine_facts() {
  KeyValues facts;
  facts.emplace_back("cpu_model", cpu_model());
  facts.emplace_back("cpu_cores", std::to_string(sysconf(_SC_NPROCESSORS_ONLN)));
  utsname name{};
  if (uname(&name) == 0)
    facts.emplace_back("kernel", fmt::format("{} {} {}", name.sysname, name.release, name.machine));
  facts.emplace_back("launcher", launcher_name());
  for (auto& kv : slurm_facts()) facts.push_back(std::move(kv));
  return facts;
}

std::string iso_time_now() {
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now);
}

}  // namespace distbench
