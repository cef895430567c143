// How subcommands plug into main: each file adds its CLI11 subcommand(s) and says what runs once parsed
// (cli/command_table.hpp lists the files).
// Options live in structs owned by the callbacks; nothing is global.
#pragma once

#include "backends/registry.hpp"
#include "cli/startup_clock.hpp"
#include "core/comm/connector.hpp"
#include "core/error.hpp"
#include "core/sys/termination.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace distbench::cli {

// The process's raw arguments, for MPI initialisation and for reports (argv is recorded as typed).
struct Invocation {
  int argc = 0;
  char** argv = nullptr;
  std::unique_ptr<Connector> connector;   // made on first connect(); main uses it to report and abort on errors
  TerminationSignals* signals = nullptr;  // where a command says what to do when the launcher ends the process
  StartupClock startup{};                 // this rank's marks as the job forms (the first taken as main() begins)
  bool forming_failed = false;            // connect() threw: each process's error is its own view of the failed launch

  // The connector, formed on first use (MPI initialised, or the env:// rendezvous run). Commands that need no other
  // process never call it.
  Connector& connect(const ConnectOptions& options);
  // Ends this process's part in the job (MPI finalised, env:// links closed): waits for the other ranks, so the caller
  // bounds it. Nothing may use the connector after.
  void disconnect() { connector.reset(); }
  std::vector<std::string> arguments() const { return {argv, argv + argc}; }
};

struct Command {
  Command(CLI::App* a, std::function<int(Invocation&)> r, std::function<int(ExitCode)> e = {})
      : app(a), run(std::move(r)), exit_code_of_error(std::move(e)) {}

  CLI::App* app = nullptr;
  std::function<int(Invocation&)> run;  // returns the exit code; throws distbench::Error on failure
  // The exit code of an error this command could not run past, when it follows another convention than README's
  // table (health: 3, "unknown", as monitoring systems expect); unset: the error's own code.
  std::function<int(ExitCode)> exit_code_of_error;
};
using Commands = std::vector<Command>;

}  // namespace distbench::cli
