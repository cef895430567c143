#include "connectors/slurm_settings.hpp"

#include "connectors/slurm_lists.hpp"
#include "core/error.hpp"

#include <fmt/format.h>

#include <charconv>
#include <map>

namespace distbench::connectors {
namespace {

bool is_given(const EnvLookup& env, std::string_view name) {
  const auto value = env(name);
  return value && !value->empty();
}

// The first of two variables that is set (Slurm's name, then its older one), as {name, value}.
std::optional<std::pair<std::string, std::string>> either_of(const EnvLookup& env, std::string_view name,
                                                             std::string_view other) {
  for (const auto n : {name, other}) {
    if (auto value = env(n); value && !value->empty()) return std::pair{std::string(n), std::move(*value)};
  }
  return std::nullopt;
}

// A job or step id, for the port: a whole number.
std::uint64_t slurm_id(const std::pair<std::string, std::string>& variable) {
  std::uint64_t value = 0;
  const auto& [name, text] = variable;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    throw usage_error(
        fmt::format("{}='{}' is not a whole number, and rank 0's port is derived from it; set "
                    "MASTER_PORT to a free port for this step",
                    name, shown_value(text)));
  }
  return value;
}

// Rank 0's host: the first of the step's nodes. Rank 0 checks that it runs there.
std::string first_node(const EnvLookup& env, int rank) {
  const auto list = either_of(env, "SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST");
  if (!list) {
    throw usage_error(
        "neither SLURM_STEP_NODELIST nor SLURM_JOB_NODELIST is set, and rank 0's host is the first node of the "
        "step; set MASTER_ADDR to it");
  }
  const std::string host = HostList::parse(list->first, list->second, "set MASTER_ADDR to rank 0's host").first();
  const auto node = env("SLURM_NODEID");
  if (rank == 0 && node && *node != "0") {
    throw usage_error(fmt::format(
        "rank 0 (SLURM_PROCID=0) runs on node {} of the step ({}), not on its first node {}, where every task looks "
        "for it (Slurm placed task 0 elsewhere, as -m arbitrary may); set MASTER_ADDR to task 0's host",
        shown_value(*node), shown_value(env("SLURMD_NODENAME").value_or("?")), host));
  }
  return host;
}

// LOCAL_RANK and LOCAL_WORLD_SIZE from Slurm's, where they add up; else none, and the hosts' names decide.
void add_local_ranks(const EnvLookup& env, int world, std::map<std::string, std::string, std::less<>>& vars) {
  const auto local = env("SLURM_LOCALID");
  const auto node = env("SLURM_NODEID");
  const auto counts = env("SLURM_STEP_TASKS_PER_NODE");
  if (!local || !node || !counts || total_tasks(*counts) != static_cast<std::uint64_t>(world)) return;
  int local_rank = 0;
  int node_id = 0;
  if (std::from_chars(local->data(), local->data() + local->size(), local_rank).ptr != local->data() + local->size() ||
      std::from_chars(node->data(), node->data() + node->size(), node_id).ptr != node->data() + node->size()) {
    return;
  }
  const auto here = tasks_on_node(*counts, node_id);
  if (!here || local_rank < 0 || local_rank >= *here) return;
  vars["LOCAL_RANK"] = std::to_string(local_rank);
  vars["LOCAL_WORLD_SIZE"] = std::to_string(*here);
}

}  // namespace

bool in_slurm_step(const EnvLookup& env) { return env("SLURM_STEP_ID").has_value() && env("SLURM_PROCID").has_value(); }

bool srun_started_this_task(const EnvLookup& env) {
  if (!in_slurm_step(env) || env("OMPI_COMM_WORLD_SIZE")) return false;
  const auto agrees = [&](const char* name, const char* slurm_name) {
    const auto value = env(name);
    return !value || value == env(slurm_name);
  };
  return agrees("PMIX_RANK", "SLURM_PROCID") && agrees("PMI_RANK", "SLURM_PROCID") &&
         agrees("PMI_SIZE", "SLURM_STEP_NUM_TASKS");
}

int slurm_step_port(std::uint64_t job_id, std::uint64_t step_id) {
  return kSlurmPortBase + static_cast<int>(10 * (job_id % 1000) + step_id % 10);
}

EnvSettings read_slurm_settings(const EnvLookup& env) {
  const auto tasks = either_of(env, "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS");
  if (!tasks) {
    throw usage_error(
        "SLURM_STEP_NUM_TASKS (or SLURM_NTASKS) is not set: an env:// launch from Slurm's variables needs the "
        "step's number of tasks; srun sets it, or export torchrun's variables yourself");
  }
  const int world = env_whole_number(tasks->first, tasks->second, 1, kMaxEnvWorld, "the number of tasks in the step");
  const int rank = env_whole_number("SLURM_PROCID", env("SLURM_PROCID").value_or(""), 0, world - 1,
                                    fmt::format("this task's rank, below {}={}", tasks->first, world));
  const auto job = either_of(env, "SLURM_JOB_ID", "SLURM_JOBID").value_or(std::pair{"SLURM_JOB_ID", ""});
  const auto step = either_of(env, "SLURM_STEP_ID", "SLURM_STEPID").value_or(std::pair{"SLURM_STEP_ID", ""});
  const std::string origin =
      fmt::format("Slurm's variables: job {} step {}", shown_value(job.second), shown_value(step.second));

  // torchrun's names over this task's environment: what Slurm's give, where torchrun's are not set.
  std::map<std::string, std::string, std::less<>> vars{{"RANK", std::to_string(rank)},
                                                       {"WORLD_SIZE", std::to_string(world)}};
  if (!is_given(env, "MASTER_ADDR")) vars["MASTER_ADDR"] = first_node(env, rank);
  const bool own_port = is_given(env, "MASTER_PORT") || is_given(env, "DISTBENCH_MASTER_PORT");
  if (!own_port) vars["MASTER_PORT"] = std::to_string(slurm_step_port(slurm_id(job), slurm_id(step)));
  if (!is_given(env, "LOCAL_RANK") && !is_given(env, "LOCAL_WORLD_SIZE")) add_local_ranks(env, world, vars);
  const EnvLookup torchrun_names = [&](std::string_view name) -> std::optional<std::string> {
    if (const auto it = vars.find(name); it != vars.end()) return it->second;
    if (!own_port && name == "TORCHELASTIC_USE_AGENT_STORE") return std::nullopt;  // no agent holds Slurm's port
    return env(name);
  };
  EnvSettings s = read_env_settings(torchrun_names);
  s.ranks_origin = origin;
  if (!own_port) s.port_origin = "from " + origin;
  return s;
}

}  // namespace distbench::connectors
