// How a run ends when it cannot finish, in one place: what is written (the root's report marked failed or
// interrupted, with the error, the signal and the end time; the benchmark's own verdict files marked unfinished),
// which exit code the process leaves with, and what survives (every case the reporters already wrote). The
// watchdog, the termination signals, a connector that learns the job broke, and the main thread when the benchmark
// throws or abandons its job all end the run through one RunEnding, one at a time; the complete report is written
// while holding it, so that a watchdog firing then waits for it.
#pragma once

#include "cli/progress.hpp"
#include "cli/runner.hpp"
#include "core/benchmark.hpp"
#include "core/comm/connector.hpp"
#include "core/report/reporter.hpp"
#include "core/report/run_info.hpp"
#include "core/sys/termination.hpp"
#include "core/sys/watchdog.hpp"

#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace distbench::cli {

class RunEnding {
 public:
  // From the moment the job has formed: a step that times out while the run is set up (the backend chosen, the
  // communicators created, the run's facts gathered) ends it with no report yet.
  RunEnding(Connector& connector, const RunSettings& settings, const Benchmark& benchmark);
  RunEnding(const RunEnding&) = delete;
  RunEnding& operator=(const RunEnding&) = delete;

  // Once the reports have begun: from then on every ending marks them. `progress` and `reporters` are the root's
  // (null elsewhere); `info` is the run as the reports began it.
  void report_to(ProgressLine* progress, ReporterSet* reporters, RunInfo info);

  // The watchdog's: a step did not finish within -T; names the step and this rank, ends with the timeout's code.
  Watchdog::Expired on_timeout();
  // The connector's: the job broke (env://: a peer's abort, a peer gone); ends with the code it gives.
  Connector::FailureHandler on_broken_job();
  // The signals': ended from outside (Ctrl-C, a scheduler, the launcher after another rank failed), or continued
  // after being stopped past the timeout; `watchdog` tells which.
  TerminationSignals::Handler on_signal(Watchdog& watchdog);

  // The benchmark threw `e`: the report keeps what was measured and says why it stopped; the caller rethrows.
  // `unwound`: the kind of step the error left (Watchdog::unwound_kind), recorded when it is a timeout, and that
  // step's description (Watchdog::unwound_step), which the report's error then begins with unless it names it: a
  // bounded wait's own words ("allreduce of 1386 elements did not complete within 2 s") do not say in which step.
  void after_error(const Error& e, std::optional<StepKind> unwound = std::nullopt,
                   const std::string& unwound_step = "");
  // Some ranks stopped answering (outcome.abandon): the root writes the report and leaves first, the others wait to
  // be ended; every rank with the outcome's code (the timeout's by default), without finalising MPI.
  [[noreturn]] void abandon(const BenchmarkOutcome& outcome, std::optional<StepKind> failed_step = std::nullopt);
  // The reports are closed (the complete report written): an ending from now on leaves them as they are.
  void reports_closed();
  // Held while the complete report is written.
  [[nodiscard]] std::unique_lock<std::mutex> hold() { return std::unique_lock(leaving_); }

 private:
  // Marks the report `status` (on the root) and ends this process without calling MPI: the watchdog and signal
  // threads run while the main thread may be inside MPI. The launcher then ends the other ranks.
  // `failed_step`: the kind of step that did not finish within -T, when that is why.
  [[noreturn]] void end_and_exit(const std::string& status, const std::string& message, int signal, int exit_code,
                                 std::optional<StepKind> failed_step = std::nullopt);
  [[noreturn]] void fail_and_exit(const std::string& message, int exit_code,
                                  std::optional<StepKind> failed_step = std::nullopt) {
    end_and_exit("failed", message, 0, exit_code, failed_step);
  }
  // The signal's ending: a step this rank overran or a freeze is the cause, else the signal itself.
  [[noreturn]] void end_on_signal(Watchdog& watchdog, int signal);

  // This rank, as the connector knows it (read once: the connector may be going away when the job is left).
  const int rank_;
  const std::string host_;
  const bool root_;
  ProgressLine* progress_ = nullptr;  // these three are set once, by report_to, under `leaving_`
  ReporterSet* reporters_ = nullptr;
  RunInfo info_;
  const Benchmark& benchmark_;
  const int timeout_exit_code_;
  const double freeze_bound_s_;  // a rank stopped longer than this: its peers have given up on it (leave_bound_s)
  const std::optional<int> interrupted_exit_code_;
  const bool launched_;  // by a launcher, with other ranks: a signal may be its word that another rank failed
  std::mutex leaving_;   // the first ending decides; the report is written by one thread at a time
};

// For a command that writes no report (info): a step that did not finish within -T ends the process with the
// timeout's code and one line naming the step and this rank.
Watchdog::Expired end_without_report(Connector& connector);

// Each warning as one `warning:` line on stderr.
void print_warnings(const std::vector<Warning>& warnings);

}  // namespace distbench::cli
