// `distbench hostfile check FILE`: parse a hostfile as mpirun would and print what it describes.
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/validators.hpp"
#include "core/hostfile.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>
#include <string>

namespace distbench::cli {
namespace {

struct HostfileCheckOptions {
  std::string path;
};

// The file is not checked with CLI::ExistingFile: read_hostfile names the path and the system's reason.
void setup_hostfile_check(CLI::App& app, HostfileCheckOptions& opts) {
  app.add_option("FILE", opts.path, "hostfile to check (OpenMPI 'node1 slots=4' or MPICH 'node1:4')")->required()->check(non_empty_path());
}

int run_hostfile_check(const HostfileCheckOptions& opts) {
  const Hostfile hostfile = read_hostfile(opts.path);  // throws usage_error on bad input
  fmt::print("{}", format_hostfile_summary(hostfile));
  return 0;
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
