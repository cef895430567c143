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

namespace distbench {

struct InterleavedPlan {
  std::string baseline_command, candidate_command;  // shell command lines; "{report}" is replaced by the report's
                                                     // path, or " --json PATH" is appended when it is absent
  int rounds = 20;  // the power to catch a ~10-20 % change on a shared machine (docs/compare.md)
  double run_timeout_s = 600;  // each run's deadline
  std::string runs_dir;        // where each run's report and output are kept (created; must be new or empty)
};

struct InterleavedRuns {
  std::vector<ParsedReport> baseline, candidate;  // round order
  double seconds = 0;
};

// The command line that runs `command` writing its report to `report_path`.
std::string command_with_report(const std::string& command, const std::string& report_path);

// Runs the rounds. `progress` gets a line after each run (for stderr). Throws Error(not_judged) when a run fails,
// times out or writes no complete report (naming the run, its status and its output's last line; the runs so far
// stay in runs_dir), and usage_error for a plan that cannot run (no rounds, a runs_dir in use).
InterleavedRuns run_interleaved(const InterleavedPlan& plan, CommandRunner& runner,
                                const std::function<void(const std::string&)>& progress);

}  // namespace distbench
