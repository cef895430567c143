#include "cli/command_table.hpp"

#include <CLI/CLI.hpp>

#include <array>

namespace distbench::cli {

// Defined each in its own file.
void add_collective_commands(CLI::App& root, Commands& commands);
void add_latency_command(CLI::App& root, Commands& commands);
void add_health_command(CLI::App& root, Commands& commands);
void add_zero_command(CLI::App& root, Commands& commands);
void add_train_command(CLI::App& root, Commands& commands);
void add_tp_command(CLI::App& root, Commands& commands);
void add_compare_command(CLI::App& root, Commands& commands);
void add_report_command(CLI::App& root, Commands& commands);
void add_model_command(CLI::App& root, Commands& commands);
void add_history_command(CLI::App& root, Commands& commands);
void add_list_command(CLI::App& root, Commands& commands);
void add_info_command(CLI::App& root, Commands& commands);
void add_hostfile_command(CLI::App& root, Commands& commands);

namespace {

constexpr std::array kCommands = {
    CommandEntry{"collective_cmd.cpp", add_collective_commands},  // one command per collective
    CommandEntry{"latency_cmd.cpp", add_latency_command},
    CommandEntry{"health_cmd.cpp", add_health_command},
    CommandEntry{"zero_cmd.cpp", add_zero_command},
    CommandEntry{"train_cmd.cpp", add_train_command},
    CommandEntry{"tp_cmd.cpp", add_tp_command},
    CommandEntry{"compare_cmd.cpp", add_compare_command},
    CommandEntry{"model_cmd.cpp", add_model_command},
    CommandEntry{"history_cmd.cpp", add_history_command},
    CommandEntry{"list_cmd.cpp", add_list_command},
    CommandEntry{"info_cmd.cpp", add_info_command},
    CommandEntry{"hostfile_cmd.cpp", add_hostfile_command},
    CommandEntry{"report_cmd.cpp", add_report_command},
};

// The command named first on the command line: `app` itself, or the command above it ("hostfile" for "hostfile
// check").
const CLI::App& top_command(const CLI::App& app) {
  const CLI::App* top = &app;
  while (top->get_parent() != nullptr && top->get_parent()->get_parent() != nullptr) top = top->get_parent();
  return *top;
}

}  // namespace

std::span<const CommandEntry> command_table() { return kCommands; }

Commands add_commands(CLI::App& root) {
  Commands commands;
  for (const CommandEntry& entry : kCommands) entry.add(root, commands);
  return commands;
}

const Command* find_command(const Commands& commands, std::string_view word) {
  for (const Command& c : commands) {
    if (top_command(*c.app).get_name() == word) return &c;
  }
  return nullptr;
}

}  // namespace distbench::cli
