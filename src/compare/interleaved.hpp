// The interleaved gate: runs the baseline's command and the candidate's alternately on this machine, N rounds
// (baseline first in odd rounds, candidate first in even ones: ABBA, so that a drift that grows through the job hits
// both sides alike), each run writing its own JSON report, kept with its output. The two commands may differ in
// anything (binary, environment, Open MPI or NCCL settings, arguments): they are whole shell command lines.
#pragma once

#include "compare/command_run.hpp"
#include "core/report/json_model.hpp"

#include <functional>
#include <string>
#include <vector>

namespace distbench::compare {

// The variable that holds a run's report path in its environment; "{report}" in a command stands for it.
inline constexpr const char* kReportVariable = "DISTBENCH_REPORT";

struct InterleavedPlan {
  std::string baseline_command, candidate_command;  // shell command lines; "{report}" stands for the report's path
                                                    // (command_with_report), or --json PATH is appended without it
  int rounds = 20;             // the power to catch a ~10-20 % change on a shared machine (docs/compare.md)
  double run_timeout_s = 600;  // each run's deadline
  std::string runs_dir;        // where each run's report and output are kept (created; must be new or empty)
};

struct InterleavedRuns {
  std::vector<ParsedReport> baseline, candidate;  // round order
  double seconds = 0;
};

// The command line that runs `command` writing its report where $DISTBENCH_REPORT says: each "{report}" becomes
// ${DISTBENCH_REPORT}, a reference that the shell expands, at any depth of quoting (inside double quotes, and in
// the text of an `sh -c '...'` whose shell inherits the variable), never text spliced into the command; without a
// "{report}", --json "${DISTBENCH_REPORT}" is appended.
std::string command_with_report(const std::string& command);

// Throws usage_error unless a runs folder's path holds only letters, digits, _ @ % + = : , . / - and UTF-8: what no
// shell reads as anything but text, unquoted or in double quotes, so that ${DISTBENCH_REPORT} is one word even where
// an outer shell expands it into the text of an inner one (sh -c "... {report}"). `what` names where the path came
// from ("--runs-dir").
void check_runs_dir_name(const std::string& dir, const std::string& what);

// Runs the rounds. `progress` gets a line after each run (for stderr). Throws Error(not_judged) when a run fails,
// times out or writes no readable, complete report (naming the run, its status and its output's last line; the runs
// so far stay in runs_dir), Error(wrong_results) when a run that failed wrote a report counting wrong elements, and
// usage_error for a plan that cannot run (no rounds, a runs_dir in use or with a name check_runs_dir_name refuses).
InterleavedRuns run_interleaved(const InterleavedPlan& plan, CommandRunner& runner,
                                const std::function<void(const std::string&)>& progress);

}  // namespace distbench::compare
