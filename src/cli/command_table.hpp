// Every command of distbench, in one table that main iterates: one entry per src/cli/*_cmd.cpp file, in the order
// `distbench --help` lists their commands. Each entry's function adds its CLI11 subcommand(s) (the name, summary and
// help section are its own) and what runs them; the help's command list and the "did you mean" for a mistyped
// command read the subcommands the table added. A new command: its file and one entry here.
#pragma once

#include "cli/command.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::cli {

// Adds one file's command(s) to `root` and what runs them to `commands`.
using AddCommand = void (*)(CLI::App& root, Commands& commands);

struct CommandEntry {
  std::string_view file;  // where the command lives, "latency_cmd.cpp": for readers and the table's test
  AddCommand add;
};

std::span<const CommandEntry> command_table();

// Every entry's commands added to `root`, in the table's order.
Commands add_commands(CLI::App& root);

// The command whose first word (the name typed after `distbench`) is `word`; nullptr when none.
const Command* find_command(const Commands& commands, std::string_view word);

}  // namespace distbench::cli
