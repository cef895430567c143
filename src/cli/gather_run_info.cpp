#include "cli/gather_run_info.hpp"

#include "core/report/nic_rate_json.hpp"
#include "core/sys/environment.hpp"
#include "core/sys/machine_mode.hpp"
#include "version.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace distbench::cli {

std::vector<NodeNicRate> gather_nic_rates(Connector& connector, const std::vector<std::string>& hosts,
                                          const std::vector<int>& local_ranks, const ArmedStep& step) {
  // Each node's first local rank reads its sysfs; the others send nothing: one short record per node.
  std::string mine;
  if (connector.local_rank() == 0) mine = nic_rate_json({connector.hostname(), read_nic_rate("/")}).dump();
  const auto sent = allgather_string(connector, mine, step);
  std::vector<NodeNicRate> out;
  for (std::size_t r = 0; r < sent.size(); ++r) {
    if (local_ranks[r] != 0 || sent[r].empty()) continue;
    std::string problem;
    const auto j = parse_json_text(sent[r], problem);
    if (!j) throw failure(fmt::format("rank {}: its NIC rate did not arrive whole: {}", r, problem));
    NodeNicRate n = nic_rate_from(JsonField(*j, "nic_rate"));
    n.host = hosts[r];
    out.push_back(std::move(n));
  }
  return out;
}

RunInfo make_run_info(Connector& connector, World& world, const BackendEntry& entry,
                      const std::vector<std::string>& argv, const ArmedStep& step) {
  RunInfo info;
  info.tool_version = kVersion;
  info.git_sha = kGitSha;
  info.argv = argv;
  info.start_time = iso_time_now();
  info.world_size = connector.size();
  const auto hosts = allgather_string(connector, connector.hostname(), step);
  const auto local_ranks = allgather_value(connector, connector.local_rank(), step);
  const auto cpus = allgather_string(connector, allowed_cpus_text(), step);
  for (int r = 0; r < connector.size(); ++r) {
    const auto i = static_cast<std::size_t>(r);
    info.ranks.push_back({r, hosts[i], local_ranks[i], cpus[i]});
  }
  info.versions = entry.build_versions();
  for (auto& kv : world.backend().describe()) {
    if (std::find(info.versions.begin(), info.versions.end(), kv) == info.versions.end()) info.versions.push_back(kv);
  }
  info.versions.emplace_back("backend", std::string(world.backend().name()));
  info.versions.emplace_back("connector", connector.launch_description());
  for (auto& kv : connector.facts()) info.versions.push_back(std::move(kv));
  info.versions.emplace_back("compiler", kCompiler);
  info.versions.emplace_back("build", kBuildOptions);
  for (auto& kv : machine_facts()) info.versions.push_back(std::move(kv));
  info.environment = captured_environment();
  info.nic_rates = gather_nic_rates(connector, hosts, local_ranks, step);
  return info;
}

void note_steal_time(RunInfo& info, std::vector<Warning>& warnings, const std::optional<CpuTicks>& before) {
  const auto after = machine_cpu_ticks();
  if (!before || !after) return;
  const auto stolen = steal_fraction(*before, *after);
  if (!stolen) {
    info.versions.emplace_back("steal_time",
                               "unknown: the run was shorter than one tick of the kernel's CPU accounting");
    return;
  }
  info.versions.emplace_back("steal_time",
                             fmt::format("{:.1f} % of the machine's CPU time over the run", 100 * *stolen));
  if (*stolen > kStealWarnFraction) {
    warnings.push_back(
        {"steal_time",
         fmt::format("the hypervisor took {:.0f}% of this machine's CPU time during the run; rerun when it is quieter",
                     100 * *stolen),
         fmt::format(
             "the hypervisor took {:.1f} % of this machine's CPU time during the run (steal time in /proc/stat): "
             "a shared host can run a whole run in a slower mode, in every tool; compare these figures only "
             "with runs of little steal time, or rerun when the host is quieter",
             100 * *stolen)});
  }
}

}  // namespace distbench::cli
