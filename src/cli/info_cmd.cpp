// `distbench info`: versions, backends and where the ranks run, as text or as JSON for tools. Run it under mpirun to
// see every host; the first rank prints.
#include "backends/registry.hpp"
#include "cli/command.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "cli/run_ending.hpp"
#include "cli/validators.hpp"
#include "core/comm/backend.hpp"
#include "core/error.hpp"
#include "core/report/text.hpp"
#include "core/sys/environment.hpp"
#include "core/sys/gpu_readings.hpp"
#include "core/sys/nvml_library.hpp"
#include "version.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <variant>

namespace distbench::cli {
namespace {

nlohmann::ordered_json key_values(const KeyValues& pairs) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [key, value] : pairs) out[key] = value;
  return out;
}

struct InfoOptions {
  std::string backend = "auto";
  std::string launcher = "auto";
  double timeout_s = 300.0;
  bool json = false;
};

// What info shows of a job: the backend that would run (none where none can with this job, e.g. env:// without a
// GPU), and where the ranks are.
struct JobView {
  const Connector& connector;
  const Backend* backend;  // nullptr: none can run
  std::string no_backend;  // why, when none can
  std::map<std::string, std::vector<int>> ranks_by_host;
};

// "srun (Slurm job 12, step 0, partition debug, nodes node[1-2]: 2 nodes, 8 tasks)", or the launcher alone.
std::string launcher_text() {
  const KeyValues slurm = slurm_facts();
  if (slurm.empty()) return launcher_name();
  const auto get = [&slurm](std::string_view key) {
    for (const auto& [k, v] : slurm) {
      if (k == key) return v;
    }
    return std::string("?");
  };
  return fmt::format("{} (Slurm job {}, step {}, partition {}, nodes {}: {} {}, {} {})", launcher_name(),
                     get("slurm.job_id"), get("slurm.step_id"), get("slurm.partition"), get("slurm.nodelist"),
                     get("slurm.nodes"), get("slurm.nodes") == "1" ? "node" : "nodes", get("slurm.tasks"),
                     get("slurm.tasks") == "1" ? "task" : "tasks");
}

// What NVML reads of the first rank's host's GPUs (health's gpu phase reads the same on every node), or why it
// cannot: {"unavailable": why}.
nlohmann::json nvml_state() {
  auto opened = NvmlLibrary::open();
  if (const auto* why = std::get_if<std::string>(&opened)) return {{"unavailable", *why}};
  return read_gpu_state(*std::get<std::unique_ptr<NvmlLibrary>>(opened));
}

void print_nvml_text(const nlohmann::json& nvml) {
  if (nvml.contains("unavailable") && nvml["unavailable"].is_string()) {
    fmt::print("GPUs (NVML, this host): none read ({})\n", nvml["unavailable"].get<std::string>());
    return;
  }
  fmt::print("GPUs (NVML, this host): {}, driver {}, CUDA {}\n", nvml.value("count", 0),
             nvml.value("driver", std::string("?")), nvml.value("cuda_driver", std::string("?")));
  for (const auto& g : nvml.value("gpus", nlohmann::json::array())) {
    fmt::print("  GPU {}: {} ({}), PCIe Gen{} x{} (max Gen{} x{}), {} C, {} W of {} W\n", g.value("index", -1),
               g.value("name", std::string("?")), g.value("bus_id", std::string("?")), g.value("pcie_gen", 0),
               g.value("pcie_width", 0), g.value("pcie_max_gen", 0), g.value("pcie_max_width", 0),
               g.value("temperature_c", 0), g.value("power_w", 0.0), g.value("power_limit_w", 0.0));
  }
}

void print_info_text(const JobView& job) {
  fmt::print("distbench {} (git {})\n", kVersion, kGitSha);
  fmt::print("launched by: {}\n", launcher_text());
  fmt::print("job formed by: {}\n", job.connector.launch_description());
  fmt::print("backends built in:\n");
  for (const auto& e : backend_registry()) {
    const auto reason = backend_unavailable_reason(e, job.connector);
    fmt::print("  {:<6} {}\n", e.name,
               reason ? fmt::format("unavailable here: {}", *reason) : std::string("available"));
    for (const auto& [key, value] : e.build_versions()) fmt::print("         {}: {}\n", key, value);
  }
  if (job.backend != nullptr) {
    fmt::print("backend in use: {}\n", job.backend->name());
    for (const auto& [key, value] : job.backend->describe()) fmt::print("  {}: {}\n", key, value);
  } else {
    fmt::print("backend in use: none ({})\n", job.no_backend);
  }
  fmt::print("ranks: {} on {}\n", job.connector.size(), plural(job.ranks_by_host.size(), "host", "hosts"));
  for (const auto& [host, ranks] : job.ranks_by_host) {
    fmt::print("  {:<24} {}: {}\n", host, plural(ranks.size(), "rank", "ranks"), fmt::join(ranks, ","));
  }
  print_nvml_text(nvml_state());
}

void print_info_json(const JobView& job) {
  nlohmann::ordered_json doc;
  doc["version"] = kVersion;
  doc["git"] = kGitSha;
  doc["launcher"] = {{"name", launcher_name()}};
  if (const KeyValues slurm = slurm_facts(); !slurm.empty()) {
    nlohmann::ordered_json facts = nlohmann::ordered_json::object();
    for (const auto& [key, value] : slurm) facts[key.substr(std::string_view("slurm.").size())] = value;
    doc["launcher"]["slurm"] = facts;
  }
  doc["connector"] = {{"kind", job.connector.kind()}, {"launch", job.connector.launch_description()}};
  doc["backends"] = nlohmann::ordered_json::array();
  for (const auto& e : backend_registry()) {
    const auto reason = backend_unavailable_reason(e, job.connector);
    doc["backends"].push_back({{"name", e.name},
                               {"available", !reason.has_value()},
                               {"reason", reason ? nlohmann::ordered_json(*reason) : nlohmann::ordered_json()},
                               {"build_versions", key_values(e.build_versions())}});
  }
  if (job.backend != nullptr) {
    doc["backend"] = {{"name", job.backend->name()}, {"describe", key_values(job.backend->describe())}};
  } else {
    doc["backend"] = {{"name", nullptr}, {"reason", job.no_backend}};
  }
  doc["ranks"] = job.connector.size();
  doc["hosts"] = nlohmann::ordered_json::array();
  for (const auto& [host, ranks] : job.ranks_by_host) doc["hosts"].push_back({{"name", host}, {"ranks", ranks}});
  doc["nvml"] = nvml_state();
  fmt::print("{}\n", doc.dump(2));
}

int run_info(Invocation& inv, const InfoOptions& o) {
  Connector& connector = inv.connect({o.launcher, o.timeout_s});
  Watchdog watchdog(o.timeout_s, end_without_report(connector));
  std::unique_ptr<Backend> backend;
  std::string no_backend;
  try {
    backend = choose_backend(o.backend, connector).create(connector, BackendOptions{});
  } catch (const Error& e) {
    // With --backend auto, a job that no backend can run with is still worth describing (every rank finds the
    // same; a named backend that cannot run is an error).
    if (o.backend != "auto" || e.code() != ExitCode::unavailable) throw;
    no_backend = backend_registry().empty() ? "none is built in" : "none of the backends above can run here";
  }
  std::vector<std::string> hosts;
  {
    const ArmedStep step = watchdog.arm(StepKind::gather, "gathering the ranks' hosts");
    hosts = allgather_string(connector, connector.hostname(), step);
  }
  if (!connector.is_root()) return 0;

  JobView job{connector, backend.get(), no_backend, {}};
  for (std::size_t r = 0; r < hosts.size(); ++r) job.ranks_by_host[hosts[r]].push_back(static_cast<int>(r));
  if (o.json) {
    print_info_json(job);
  } else {
    print_info_text(job);
  }
  return 0;
}

}  // namespace

void add_info_command(CLI::App& root, Commands& commands) {
  auto* app = root.add_subcommand("info", "Show versions, backends, devices and the hosts the ranks run on");
  app->group("Reports and tools");
  app->footer(help_footer(
      "Run it under mpirun (or srun) to see every host; the first rank prints.",
      exit_code_lines({ExitCode::ok, ExitCode::failure, ExitCode::usage, ExitCode::timeout, ExitCode::unavailable},
                      false)));
  auto o = std::make_shared<InfoOptions>();
  app->add_flag("--json", o->json, "Print JSON for tools instead of text")->group(groups::kOutput);
  add_backend_option(*app, o->backend);
  add_launcher_option(*app, o->launcher);
  app->add_option("-T,--timeout", o->timeout_s, "Seconds the job may take to form (the env:// rendezvous)")
      ->option_text("SECONDS")
      ->group(groups::kLaunch)
      ->check(positive_number("seconds"));
  commands.push_back({app, [o](Invocation& inv) { return run_info(inv, *o); }});
}

}  // namespace distbench::cli
