#include "cli/run_ending.hpp"

#include "core/error.hpp"
#include "core/sys/environment.hpp"
#include "core/sys/quote.hpp"

#include <fmt/core.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

namespace distbench::cli {
namespace {

// The benchmark's own verdict files say the run ended without one; leaving anyway when they cannot.
void mark_unfinished(const Benchmark& benchmark, const std::string& status, const std::string& message) noexcept {
  try {
    benchmark.mark_unfinished(message);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: the run's own files could not be marked {}: {}\n", status, escape_text(e.what()));
  }
}

}  // namespace

void print_warnings(const std::vector<Warning>& warnings) {
  for (const Warning& w : warnings) fmt::print(stderr, "warning: {}\n", escape_text(w.message));
}

RunEnding::RunEnding(Connector& connector, const RunSettings& settings, const Benchmark& benchmark)
    : rank_(connector.rank()),
      host_(connector.hostname()),
      root_(connector.is_root()),
      benchmark_(benchmark),
      timeout_exit_code_(settings.timeout_exit_code),
      freeze_bound_s_(settings.leave_bound_s()),
      interrupted_exit_code_(settings.interrupted_exit_code),
      launched_(connector.size() > 1) {}

void RunEnding::report_to(ProgressLine* progress, ReporterSet* reporters, RunInfo info) {
  std::lock_guard lock(leaving_);
  progress_ = progress;
  reporters_ = reporters;
  info_ = std::move(info);
}

void RunEnding::end_and_exit(const std::string& status, const std::string& message, int signal, int exit_code,
                             std::optional<StepKind> failed_step) {
  std::lock_guard lock(leaving_);  // the first of the watchdog and a signal decides
  if (progress_) progress_->clear();
  if (reporters_) {
    RunInfo failed = info_;
    failed.status = status;
    failed.error = message;
    failed.signal = signal;
    if (failed_step) failed.failed_step = step_kind_name(*failed_step);
    failed.end_time = iso_time_now();
    try {
      reporters_->end(failed);
    } catch (const std::exception& e) {  // leaving anyway: say why the report may be stale
      fmt::print(stderr, "error: the report could not be marked {}: {}\n", status, e.what());
    }
    mark_unfinished(benchmark_, status, message);
    std::cout.flush();
    // An interrupted run says so once, on the root (the table's footer may be silenced by -q or lost with mpirun).
    if (status == "interrupted") fmt::print(stderr, "error: {}\n", message);
  }
  std::cout.flush();
  std::fflush(stderr);
  std::_Exit(exit_code);
}

Watchdog::Expired RunEnding::on_timeout() {
  return [this](const std::string& step, StepKind kind, double timeout_s) {
    {
      std::lock_guard lock(leaving_);
      if (progress_) progress_->clear();
    }
    const std::string message = fmt::format("{} did not finish within {:g} s (-T/--timeout)", step, timeout_s);
    fmt::print(stderr, "error: rank {} ({}): {}; ending the job\n", rank_, escape_text(host_), message);
    std::fflush(stderr);
    // The root writes the report and leaves at once; the others give it (and each other) a moment to say why
    // before their exit makes the launcher end the job.
    if (!root_) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    fail_and_exit(message, timeout_exit_code_, kind);
  };
}

Watchdog::Expired end_without_report(Connector& connector) {
  return [&connector](const std::string& step, StepKind, double timeout_s) {
    fmt::print(stderr, "error: rank {} ({}): {} did not finish within {:g} s (-T/--timeout); ending the job\n",
               connector.rank(), connector.hostname(), step, timeout_s);
    std::fflush(stderr);
    std::_Exit(static_cast<int>(ExitCode::timeout));
  };
}

Connector::FailureHandler RunEnding::on_broken_job() {
  return [this](const std::string& message, int exit_code) { fail_and_exit(message, exit_code); };
}

TerminationSignals::Handler RunEnding::on_signal(Watchdog& watchdog) {
  return [this, &watchdog](int signal) { end_on_signal(watchdog, signal); };
}

void RunEnding::end_on_signal(Watchdog& watchdog, int signal) {
  const std::string step = watchdog.step();
  if (!step.empty() && watchdog.overdue()) {
    // This rank's own step had already timed out (the process was stopped, and the launcher continues it only to
    // end it): that is the cause, not the signal.
    fail_and_exit(fmt::format("{} did not finish within {:g} s (-T/--timeout); ended by signal {} ({}) before its "
                              "watchdog could say so",
                              step, watchdog.timeout_s(), signal, strsignal(signal)),
                  timeout_exit_code_, watchdog.step_kind());
  }
  if (const std::optional<double> frozen = watchdog.frozen_longer_than(freeze_bound_s_)) {
    // Stopped between steps for longer than the timeout (nothing was armed to run out): the peers' steps that
    // waited for this rank did not finish within it, which is why the launcher ends the job.
    fail_and_exit(fmt::format("this rank was stopped (or its host frozen) for {:.1f} s {}; its peers' steps did not "
                              "finish within {:g} s (-T/--timeout); ended by signal {} ({}) once it was continued",
                              *frozen, step.empty() ? "between steps" : fmt::format("during {}", step), freeze_bound_s_,
                              signal, strsignal(signal)),
                  timeout_exit_code_, watchdog.step_kind());
  }
  const char* why = launched_ ? "; the launcher sends it on Ctrl-C, at a scheduler's time limit, or when another "
                                "rank failed (that rank's error line then says why)"
                              : "";
  end_and_exit("interrupted",
               fmt::format("interrupted by signal {} (SIG{}){}{}", signal, sigabbrev_np(signal),
                           step.empty() ? "" : fmt::format(" during {}", step), why),
               signal, interrupted_exit_code_.value_or(exit_status_for_signal(signal)));
}

void RunEnding::reports_closed() {
  std::lock_guard lock(leaving_);
  progress_ = nullptr;
  reporters_ = nullptr;
}

void RunEnding::after_error(const Error& e, std::optional<StepKind> unwound, const std::string& unwound_step) {
  std::lock_guard lock(leaving_);  // the report is written by one thread at a time
  if (progress_) progress_->clear();
  if (reporters_) {  // keep what was measured, and say why it stopped
    RunInfo failed = info_;
    failed.status = "failed";
    failed.error = e.what();
    if (e.code() == ExitCode::timeout && unwound) {
      failed.failed_step = step_kind_name(*unwound);
      if (!unwound_step.empty() && failed.error.find(unwound_step) == std::string::npos) {
        failed.error = fmt::format("{}: {}", unwound_step, failed.error);
      }
    }
    failed.end_time = iso_time_now();
    reporters_->end(failed);
    mark_unfinished(benchmark_, failed.status, failed.error);
  }
}

// A job some of whose ranks stopped answering cannot finalise MPI: the root keeps the report's word and leaves
// first (the launcher then ends every rank, the stopped ones included); the others wait to be ended, for a bounded
// time, and leave with the same code.
void RunEnding::abandon(const BenchmarkOutcome& outcome, std::optional<StepKind> failed_step) {
  const int code = outcome.exit_code.value_or(static_cast<int>(ExitCode::timeout));
  std::unique_lock lock(leaving_);  // a watchdog or a signal waits for the report (not for the wait below)
  if (reporters_) {
    RunInfo failed = info_;
    failed.status = "failed";
    failed.error = outcome.abandon;
    if (failed_step) failed.failed_step = step_kind_name(*failed_step);
    failed.end_time = iso_time_now();
    failed.warnings = outcome.warnings;
    reporters_->end(failed);
    std::cout.flush();
    print_warnings(outcome.warnings);
    fmt::print(stderr, "error: {}\n", outcome.abandon);
  }
  std::cout.flush();
  std::fflush(stderr);
  lock.unlock();
  if (!root_) std::this_thread::sleep_for(std::chrono::seconds(10));
  std::_Exit(code);
}

}  // namespace distbench::cli
