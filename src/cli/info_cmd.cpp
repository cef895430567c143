// `distbench info`: versions, backends and where the ranks run, as text or as JSON for tools. Run it under mpirun to
// see every host; the first rank prints.
#include "backends/registry.hpp"
#include "cli/command.hpp"
#include "core/backend.hpp"
#include "core/report/text.hpp"
#include "core/world.hpp"
#include "version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <map>
#include <memory>

namespace distbench::cli {
namespace {

nlohmann::ordered_json key_values(const KeyValues& pairs) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [key, value] : pairs) out[key] = value;
  return out;
}

void print_info_text(const Backend& backend, int size, const std::map<std::string, std::vector<int>>& ranks_by_host) {
  fmt::print("distbench {} (git {})\n", kVersion, kGitSha);
  fmt::print("backends built in:\n");
  for (const auto& e : backend_registry()) {
    const auto reason = e.unavailable_reason();
    fmt::print("  {:<6} {}\n", e.name,
               reason ? fmt::format("unavailable here: {}", *reason) : std::string("available"));
    for (const auto& [key, value] : e.build_versions()) fmt::print("         {}: {}\n", key, value);
  }
  fmt::print("backend in use: {}\n", backend.name());
  for (const auto& [key, value] : backend.describe()) fmt::print("  {}: {}\n", key, value);
  fmt::print("ranks: {} on {}\n", size, plural(ranks_by_host.size(), "host", "hosts"));
  for (const auto& [host, ranks] : ranks_by_host) {
    fmt::print("  {:<24} {}: {}\n", host, plural(ranks.size(), "rank", "ranks"), fmt::join(ranks, ","));
  }
}

void print_info_json(const Backend& backend, int size, const std::map<std::string, std::vector<int>>& ranks_by_host) {
  nlohmann::ordered_json doc;
  doc["version"] = kVersion;
  doc["git"] = kGitSha;
  doc["backends"] = nlohmann::ordered_json::array();
  for (const auto& e : backend_registry()) {
    const auto reason = e.unavailable_reason();
    doc["backends"].push_back({{"name", e.name},
                               {"available", !reason.has_value()},
                               {"reason", reason ? nlohmann::ordered_json(*reason) : nlohmann::ordered_json()},
                               {"build_versions", key_values(e.build_versions())}});
  }
  doc["backend"] = {{"name", backend.name()}, {"describe", key_values(backend.describe())}};
  doc["ranks"] = size;
  doc["hosts"] = nlohmann::ordered_json::array();
  for (const auto& [host, ranks] : ranks_by_host) doc["hosts"].push_back({{"name", host}, {"ranks", ranks}});
  fmt::print("{}\n", doc.dump(2));
}

int run_info(Invocation& inv, const std::string& backend, bool json) {
  Connector& connector = inv.connect();
  const BackendEntry& entry = choose_backend(backend);
  World world(connector, entry.create(connector, BackendOptions{}));
  const auto hosts = allgather_string(connector, connector.hostname());
  if (!connector.is_root()) return 0;

  std::map<std::string, std::vector<int>> ranks_by_host;
  for (std::size_t r = 0; r < hosts.size(); ++r) ranks_by_host[hosts[r]].push_back(static_cast<int>(r));
  if (json) {
    print_info_json(world.backend(), connector.size(), ranks_by_host);
  } else {
    print_info_text(world.backend(), connector.size(), ranks_by_host);
  }
  return 0;
}

}  // namespace

void add_info_command(CLI::App& root, Commands& commands) {
  auto* app = root.add_subcommand("info", "Show versions, backends, devices and the hosts the ranks run on");
  auto backend = std::make_shared<std::string>("auto");
  auto json = std::make_shared<bool>(false);
  app->add_option("--backend", *backend, "Backend to describe: auto, mpi or nccl");
  app->add_flag("--json", *json, "Print JSON for tools instead of text (from the first rank)");
  commands.push_back({app, [backend, json](Invocation& inv) { return run_info(inv, *backend, *json); }});
}

}  // namespace distbench::cli
