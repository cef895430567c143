#include "cli/run_info.hpp"

#include "core/environment.hpp"
#include "version.hpp"

#include <algorithm>

namespace distbench::cli {

RunInfo make_run_info(Connector& connector, World& world, const BackendEntry& entry,
                      const std::vector<std::string>& argv) {
  RunInfo info;
  info.tool_version = kVersion;
  info.git_sha = kGitSha;
  info.argv = argv;
  info.start_time = iso_time_now();
  info.world_size = connector.size();
  const auto hosts = allgather_string(connector, connector.hostname());
  const auto local_ranks = allgather_value(connector, connector.local_rank());
  for (int r = 0; r < connector.size(); ++r) {
    info.ranks.push_back({r, hosts[static_cast<std::size_t>(r)], local_ranks[static_cast<std::size_t>(r)]});
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
  return info;
}

}  // namespace distbench::cli
