// `distbench info`: versions, backends and where the ranks run. Run it under mpirun to see every host.
#include "backends/registry.hpp"
#include "cli/command.hpp"
#include "core/backend.hpp"
#include "core/world.hpp"
#include "version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <map>

namespace distbench::cli {
namespace {

int run_info(Invocation& inv, const std::string& backend) {
  Connector& connector = inv.connect();
  const BackendEntry& entry = choose_backend(backend);
  World world(connector, entry.create(connector, BackendOptions{}));
  const auto hosts = allgather_string(connector, connector.hostname());
  if (!connector.is_root()) return 0;

  fmt::print("distbench {} (git {})\n", kVersion, kGitSha);
  fmt::print("backends built in:\n");
  for (const auto& e : backend_registry()) {
    const auto reason = e.unavailable_reason();
    fmt::print("  {:<6} {}\n", e.name, reason ? "unavailable here: " + *reason : std::string("available"));
    for (const auto& [key, value] : e.build_versions()) fmt::print("         {}: {}\n", key, value);
  }
  fmt::print("backend in use: {}\n", world.backend().name());
  for (const auto& [key, value] : world.backend().describe()) fmt::print("  {}: {}\n", key, value);

  std::map<std::string, std::vector<int>> ranks_by_host;
  for (std::size_t r = 0; r < hosts.size(); ++r) ranks_by_host[hosts[r]].push_back(static_cast<int>(r));
  fmt::print("ranks: {} on {} host(s)\n", connector.size(), ranks_by_host.size());
  for (const auto& [host, ranks] : ranks_by_host) {
    std::string list;
    for (int r : ranks) list += (list.empty() ? "" : ",") + std::to_string(r);
    fmt::print("  {:<24} {} rank(s): {}\n", host, ranks.size(), list);
  }
  return 0;
}

}  // namespace

void add_info_command(CLI::App& root, Commands& commands) {
  auto* app = root.add_subcommand("info", "Show versions, backends, devices and the hosts the ranks run on");
  auto backend = std::make_shared<std::string>("auto");
  app->add_option("--backend", *backend, "Backend to describe: auto, mpi or nccl");
  commands.push_back({app, [backend](Invocation& inv) { return run_info(inv, *backend); }});
}

}  // namespace distbench::cli
