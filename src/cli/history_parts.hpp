// `distbench history`'s subcommands, one file each group: ingest (history_cmd.cpp, which adds them all), list, runs,
// show and export (history_browse.cpp), check (history_gate.cpp).
#pragma once

#include "cli/command.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace distbench::cli {

// The history's file and how long to wait for another process's lock, which every subcommand takes.
struct HistoryFile {
  std::string path;
  double lock_timeout_s = 60;
};
void add_history_file_options(CLI::App& app, HistoryFile& file);
// The end of --help of the subcommands that only read or add: where to read more, exit codes 0, 1 and 2.
std::string history_footer();

void add_history_browse_commands(CLI::App& history, Commands& commands);
void add_history_check_command(CLI::App& history, Commands& commands);

}  // namespace distbench::cli
