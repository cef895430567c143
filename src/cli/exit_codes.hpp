// The exit codes a command can end with, one line each, for the end of its --help: README.md's table ("Exit codes"),
// shortened, for the commands that follow it, and the conventions of health and compare for theirs.
#pragma once

#include "core/error.hpp"

#include <initializer_list>
#include <string>
#include <vector>

namespace distbench::cli {

struct ExitCodeLine {
  std::string code;     // "0", "130, 143"
  std::string meaning;  // "success"
};

// README.md's lines for `codes`, in that order, and the interrupted run's 130 and 143 last when `interruptible`.
std::vector<ExitCodeLine> exit_code_lines(std::initializer_list<ExitCode> codes, bool interruptible);
// Every code of README.md's table (the top-level --help).
std::vector<ExitCodeLine> all_exit_code_lines();
// health: Nagios' codes, as monitoring systems read them.
std::vector<ExitCodeLine> health_exit_code_lines();
// compare: the gate's codes (1: a case got slower; 7: it could not judge; 8: it failed to run).
std::vector<ExitCodeLine> compare_exit_code_lines();

// A footer for CLI11's App::footer: `prose` (where to read more; may be empty), then "Exit codes:" and one line per
// code, the meanings aligned.
std::string help_footer(const std::string& prose, const std::vector<ExitCodeLine>& codes);

}  // namespace distbench::cli
