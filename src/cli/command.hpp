// How subcommands plug into main: each file adds its CLI11 subcommand(s) and says what runs once parsed.
// Options live in structs owned by the callbacks; nothing is global.
#pragma once

#include "core/connector.hpp"
#include "core/termination.hpp"

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
  std::unique_ptr<Connector> connector;  // made on first connect(); main uses it to report and abort on errors
  TerminationSignals* signals = nullptr;  // where a command says what to do when the launcher ends the process

  // The connector, initialising MPI on first use. Commands that need no other process never call it.
  Connector& connect();
  std::vector<std::string> arguments() const { return {argv, argv + argc}; }
};

struct Command {
  CLI::App* app = nullptr;
  std::function<int(Invocation&)> run;  // returns the exit code; throws distbench::Error on failure
};
using Commands = std::vector<Command>;

void add_collective_commands(CLI::App& root, Commands& commands);
void add_latency_command(CLI::App& root, Commands& commands);
void add_compare_command(CLI::App& root, Commands& commands);
void add_report_command(CLI::App& root, Commands& commands);
void add_list_command(CLI::App& root, Commands& commands);
void add_info_command(CLI::App& root, Commands& commands);
void add_hostfile_command(CLI::App& root, Commands& commands);

}  // namespace distbench::cli
