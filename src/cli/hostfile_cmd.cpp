// `distbench hostfile check FILE`: parse a hostfile as mpirun would and print what it describes.
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/hostfile.hpp"
#include "cli/resolve_hosts.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace distbench::cli {
namespace {

struct HostfileCheckOptions {
  std::string path;
  bool no_resolve = false;
};

// The file is not checked with CLI::ExistingFile: read_hostfile names the path and the system's reason.
void setup_hostfile_check(CLI::App& app, HostfileCheckOptions& opts) {
  app.add_option("FILE", opts.path, "hostfile to check (OpenMPI 'node1 slots=4' or MPICH 'node1:4')")
      ->required()
      ->check(non_empty_path());
  app.add_flag("--no-resolve", opts.no_resolve, "Do not look the host names up (a template, another network)");
}

constexpr std::chrono::seconds kLookupBound{3};  // for all the names together
constexpr std::size_t kNamesShown = 10;          // the unresolved names the error line lists; the rest are counted

int run_hostfile_check(const HostfileCheckOptions& opts) {
  const Hostfile hostfile = read_hostfile(opts.path);  // throws usage_error on bad input
  fmt::print("{}", format_hostfile_summary(hostfile));
  if (opts.no_resolve) return 0;
  std::vector<std::string> names;
  for (const HostEntry& h : hostfile.hosts) names.push_back(h.host);
  std::vector<std::string> shown;
  std::size_t unresolved = 0;
  for (const HostLookup& l : resolve_hosts(names, kLookupBound)) {
    if (l.resolved) continue;
    if (++unresolved <= kNamesShown) shown.push_back(fmt::format("{} ({})", l.host, l.why));
  }
  if (unresolved == 0) return 0;
  const std::string more = unresolved > kNamesShown ? fmt::format(" and {} more", unresolved - kNamesShown) : "";
  throw usage_error(
      fmt::format("{}: {} of {} host names do not resolve here: {}{}; mpirun could not reach them (fix "
                  "the names, or --no-resolve for a template or another network)",
                  opts.path, unresolved, names.size(), fmt::join(shown, ", "), more));
}

}  // namespace

void add_hostfile_command(CLI::App& root, Commands& commands) {
  auto* hostfile = root.add_subcommand("hostfile", "Work with MPI hostfiles: the hosts mpirun starts ranks on");
  hostfile->group("Reports and tools");
  hostfile->require_subcommand(1);
  const std::string formats =
      "A hostfile lists one host per line, in one of two formats ('#' starts a comment):\n"
      "  OpenMPI  node1 slots=4 max_slots=8   (slots defaults to 1; count= means slots)\n"
      "  MPICH    node1:4                     (:4 is the slots; it defaults to 1)\n"
      "A file of bare host names (node1) works with both.";
  const auto codes = exit_code_lines({ExitCode::ok, ExitCode::usage}, false);
  hostfile->footer(help_footer(formats, codes));

  auto opts = std::make_shared<HostfileCheckOptions>();
  auto* check = hostfile->add_subcommand("check", "Validate a hostfile and print its hosts and slot count");
  check->footer(help_footer(formats, codes));
  setup_hostfile_check(*check, *opts);
  commands.push_back(Command{check, [opts](Invocation&) { return run_hostfile_check(*opts); }});
}

}  // namespace distbench::cli
