#include "cli/runner.hpp"

#include "backends/registry.hpp"
#include "cli/progress.hpp"
#include "cli/gather_run_info.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/quote.hpp"
#include "core/malloc_tuning.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/console_reporter.hpp"
#include "core/report/report_formats.hpp"
#include "core/report/report_output.hpp"
#include "core/world.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace distbench::cli {
namespace {

bool report_to_stdout(const RunSettings& s) {
  return std::any_of(s.reports.begin(), s.reports.end(), [](const ReportTarget& t) { return t.path == kStdoutReport; });
}

// Reports of the root rank; empty elsewhere. The files come first: when a failing run has a second to say why,
// the reports on disk matter most. The table goes to stdout, or to stderr when a report goes there, or nowhere
// (-q); `progress` erases its live line before each of the table's writes.
std::unique_ptr<ReporterSet> make_reporters(const RunSettings& settings, ProgressLine* progress) {
  auto set = std::make_unique<ReporterSet>();
  for (const ReportTarget& target : settings.reports) set->push(target.format->make(target.path));
  if (!settings.quiet) {
    std::function<void()> clear;
    if (progress != nullptr) clear = [progress] { progress->clear(); };
    set->push(std::make_unique<ConsoleReporter>(report_to_stdout(settings) ? std::cerr : std::cout, clear));
  }
  return set;
}

// One report at most on stdout: two would interleave into neither format. The files the run writes (its reports,
// the benchmark's own) each their own, and none an input of the run: the last written would silently replace the
// other (--json run.out --csv run.out, or ./run.out and run.out; --prom rules.json --rules rules.json).
std::vector<NamedPath> output_files(const RunSettings& s, const Benchmark& benchmark) {
  std::vector<std::string> on_stdout;
  for (const ReportTarget& t : s.reports) {
    if (t.path == kStdoutReport) on_stdout.push_back(t.format->option());
  }
  if (on_stdout.size() > 1) {
    const std::string last = on_stdout.back();
    on_stdout.pop_back();
    throw usage_error(fmt::format("{} and {} {} go to stdout ('-'), where only one report can go; write the others to "
                                  "files",
                                  fmt::join(on_stdout, ", "), last, on_stdout.size() == 1 ? "both" : "all"));
  }
  std::vector<NamedPath> outputs;
  for (const ReportTarget& t : s.reports) {
    if (t.path != kStdoutReport) outputs.push_back({t.format->option(), t.path});
  }
  for (NamedPath& file : benchmark.output_files()) outputs.push_back(std::move(file));
  check_distinct_files(outputs, benchmark.input_files());
  return outputs;
}

// A run of one process that no launcher started measures that process alone: say how to start several.
void hint_single_process(const RunInfo& info) {
  const auto launcher = std::find_if(info.versions.begin(), info.versions.end(),
                                     [](const auto& kv) { return kv.first == "launcher"; });
  if (info.world_size != 1 || launcher == info.versions.end() || launcher->second.rfind("none", 0) != 0) return;
  fmt::print(stderr,
             "hint: one process, started without a launcher, communicates only with itself; start several with "
             "'mpirun -np N distbench ...' or 'srun -n N distbench ...'\n");
}

// Checks that only make sense once the ranks exist; every rank leaves the same way when one fails. The root's
// reporters take their files here (another live run writing one of them is refused).
void check_before_run(Connector& connector, World& world, const std::vector<NamedPath>& outputs,
                      const Benchmark& benchmark, ReporterSet* reporters) {
  std::unique_ptr<Error> problem;
  try {
    if (connector.is_root()) {
      for (const NamedPath& file : outputs) check_writable(file.path);
      if (reporters) reporters->claim();
    }
    benchmark.check(world);
  } catch (const Error& e) {
    problem = std::make_unique<Error>(e);
  }
  raise_if_any(connector, problem.get());
}

// The backend, chosen the same way on every rank (hosts may differ in what they can run).
const BackendEntry& choose_backend_everywhere(Connector& connector, const std::string& requested) {
  const BackendEntry* entry = nullptr;
  std::unique_ptr<Error> problem;
  try {
    entry = &choose_backend(requested, connector);
  } catch (const Error& e) {
    problem = std::make_unique<Error>(e);
  }
  raise_if_any(connector, problem.get());
  const auto names = allgather_string(connector, entry->name);
  for (const auto& name : names) {
    if (name != entry->name) {
      throw Error(ExitCode::unavailable,
                  fmt::format("--backend {} resolves to '{}' on some ranks and '{}' on others; name one with --backend",
                              requested, entry->name, name));
    }
  }
  return *entry;
}

// The connector's failure handler for the lifetime of a scope (the handler refers to the scope's objects).
class FailureHandlerScope {
 public:
  FailureHandlerScope(Connector& connector, Connector::FailureHandler handler) : connector_(connector) {
    connector_.set_failure_handler(std::move(handler));
  }
  ~FailureHandlerScope() { connector_.set_failure_handler(nullptr); }
  FailureHandlerScope(const FailureHandlerScope&) = delete;
  FailureHandlerScope& operator=(const FailureHandlerScope&) = delete;

 private:
  Connector& connector_;
};

void print_warnings(const std::vector<Warning>& warnings) {
  for (const Warning& w : warnings) fmt::print(stderr, "warning: {}\n", escape_text(w.message));
}

// The benchmark's own verdict files say the run ended without one; leaving anyway when they cannot.
void mark_unfinished(const Benchmark& benchmark, const std::string& status, const std::string& message) noexcept {
  try {
    benchmark.mark_unfinished(message);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: the run's own files could not be marked {}: {}\n", status, escape_text(e.what()));
  }
}

// A job some of whose ranks stopped answering cannot finalise MPI: the root keeps the report's word and leaves
// first (the launcher then ends every rank, the stopped ones included); the others wait to be ended, for a bounded
// time, and leave with the same code.
[[noreturn]] void leave_abandoned_job(Connector& connector, ReporterSet* reporters, RunInfo info,
                                      const BenchmarkOutcome& outcome) {
  const int code = outcome.exit_code.value_or(static_cast<int>(ExitCode::timeout));
  if (reporters) {
    info.status = "failed";
    info.error = outcome.abandon;
    info.end_time = iso_time_now();
    info.warnings = outcome.warnings;
    reporters->end(info);
    std::cout.flush();
    print_warnings(outcome.warnings);
    fmt::print(stderr, "error: {}\n", outcome.abandon);
  }
  std::cout.flush();
  std::fflush(stderr);
  if (!connector.is_root()) std::this_thread::sleep_for(std::chrono::seconds(10));
  std::_Exit(code);
}

}  // namespace

RunSettings run_settings(const CommonOptions& options) {
  RunSettings s;
  s.backend = options.backend;
  s.launcher = options.launcher;
  s.mpi_thread = options.mpi_thread;
  s.backend_options = backend_options(options);
  s.timeout_s = options.timeout_s;
  s.reports = options.reports;
  s.progress = options.progress;
  s.quiet = options.quiet;
  s.malloc_reuse = options.malloc_reuse;
  return s;
}

int run_benchmark(Invocation& inv, const RunSettings& settings, Benchmark& benchmark) {
  // Refuses what no rank need see, before MPI.
  const std::vector<NamedPath> outputs = output_files(settings, benchmark);
  const ProgressMode progress_mode = settings.quiet && settings.progress == "auto"
                                         ? ProgressMode::off
                                         : parse_progress_mode(settings.progress);
  if (settings.malloc_reuse) apply_malloc_reuse();  // before MPI allocates anything
  Connector& connector = inv.connect({settings.launcher, settings.timeout_s, settings.mpi_thread});
  const BackendEntry& entry = choose_backend_everywhere(connector, settings.backend);
  World world(connector, entry.create(connector, settings.backend_options));
  std::unique_ptr<ProgressLine> progress;  // the root's
  std::unique_ptr<ReporterSet> reporters;
  if (connector.is_root()) {
    progress = std::make_unique<ProgressLine>(progress_mode, isatty(STDERR_FILENO) != 0);
    reporters = make_reporters(settings, progress.get());
  }
  check_before_run(connector, world, outputs, benchmark, reporters.get());

  RunInfo info = make_run_info(connector, world, entry, inv.arguments());
  const std::optional<CpuTicks> ticks_at_start = machine_cpu_ticks();
  info.backend = entry.name;  // argv keeps what was asked
  if (connector.is_root()) {
    hint_single_process(info);
    reporters->begin(info, benchmark.describe(info));
  }

  // Marks the report failed (on the root) and ends this process without calling MPI: the watchdog and signal
  // threads run while the main thread may be inside MPI. The launcher then ends the other ranks.
  std::mutex leaving;
  auto end_and_exit = [&leaving, &reporters, &progress, &benchmark, info](const std::string& status,
                                                                          const std::string& message, int signal,
                                                                          int exit_code) {
    std::lock_guard lock(leaving);  // the first of the watchdog and a signal decides
    if (progress) progress->clear();
    if (reporters) {
      RunInfo failed = info;
      failed.status = status;
      failed.error = message;
      failed.signal = signal;
      failed.end_time = iso_time_now();
      try {
        reporters->end(failed);
      } catch (const std::exception& e) {  // leaving anyway: say why the report may be stale
        fmt::print(stderr, "error: the report could not be marked {}: {}\n", status, e.what());
      }
      mark_unfinished(benchmark, status, message);
      std::cout.flush();
      // An interrupted run says so once, on the root (the table's footer may be silenced by -q or lost with mpirun).
      if (status == "interrupted") fmt::print(stderr, "error: {}\n", message);
    }
    std::cout.flush();
    std::fflush(stderr);
    std::_Exit(exit_code);
  };
  auto fail_and_exit = [&end_and_exit](const std::string& message, int exit_code) {
    end_and_exit("failed", message, 0, exit_code);
  };
  // A connector that learns by itself that the job broke (env://: a peer's abort, a peer gone) ends the run the
  // same way.
  const FailureHandlerScope on_broken_job(connector, [&fail_and_exit](const std::string& message, int exit_code) {
    fail_and_exit(message, exit_code);
  });

  // On a hang: name the step and this rank, mark the report failed, and end the job with exit code 4.
  const int timeout_exit_code = settings.timeout_exit_code;
  Watchdog watchdog(settings.timeout_s, [&connector, &progress, &fail_and_exit, timeout_exit_code](
                                            const std::string& step, double timeout_s) {
    if (progress) progress->clear();
    const std::string message = fmt::format("{} did not finish within {:g} s (-T/--timeout)", step, timeout_s);
    fmt::print(stderr, "error: rank {} ({}): {}; ending the job\n", connector.rank(), connector.hostname(), message);
    std::fflush(stderr);
    // The root writes the report and leaves at once; the others give it (and each other) a moment to say why
    // before their exit makes the launcher end the job.
    if (!connector.is_root()) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    fail_and_exit(message, timeout_exit_code);
  });

  // Ended from outside (Ctrl-C, a scheduler, or the launcher after another rank failed or timed out): keep every
  // finished case and say it was interrupted, by which signal, during what.
  const bool launched = connector.size() > 1;
  const std::optional<int> interrupted_exit_code = settings.interrupted_exit_code;
  TerminationSignals::Scoped on_signal(*inv.signals, [&watchdog, &fail_and_exit, &end_and_exit, timeout_exit_code,
                                                      interrupted_exit_code, launched](int signal) {
    const std::string step = watchdog.step();
    if (!step.empty() && watchdog.overdue()) {
      // This rank's own step had already timed out (the process was stopped, and the launcher continues it only
      // to end it): that is the cause, not the signal.
      fail_and_exit(fmt::format("{} did not finish within {:g} s (-T/--timeout); ended by signal {} ({}) before its "
                                "watchdog could say so",
                                step, watchdog.timeout_s(), signal, strsignal(signal)),
                    timeout_exit_code);
    }
    if (const std::optional<double> frozen = watchdog.frozen_s()) {
      // Stopped between steps for longer than the timeout (nothing was armed to run out): the peers' steps that
      // waited for this rank did not finish within it, which is why the launcher ends the job.
      fail_and_exit(fmt::format("this rank was stopped (or its host frozen) for {:.1f} s {}; its peers' steps did not "
                                "finish within {:g} s (-T/--timeout); ended by signal {} ({}) once it was continued",
                                *frozen, step.empty() ? "between steps" : fmt::format("during {}", step),
                                watchdog.timeout_s(), signal, strsignal(signal)),
                    timeout_exit_code);
    }
    end_and_exit("interrupted",
                 fmt::format("interrupted by signal {} (SIG{}){}{}", signal, sigabbrev_np(signal),
                             step.empty() ? "" : fmt::format(" during {}", step),
                             launched ? "; the launcher sends it on Ctrl-C, at a scheduler's time limit, or when another "
                                        "rank failed (that rank's error line then says why)"
                                      : ""),
                 signal, interrupted_exit_code.value_or(exit_status_for_signal(signal)));
  });

  ProgressFn on_progress;
  if (progress) {
    on_progress = [&progress](std::size_t done, std::size_t total, const std::string& next) {
      progress->step(done, total, next);
    };
  }
  BenchmarkOutcome outcome;
  try {
    outcome = benchmark.run(world, watchdog, reporters.get(), on_progress);
  } catch (const Error& e) {
    std::lock_guard lock(leaving);  // the report is written by one thread at a time
    if (progress) progress->clear();
    if (reporters) {  // keep what was measured, and say why it stopped
      info.status = "failed";
      info.error = e.what();
      info.end_time = iso_time_now();
      reporters->end(info);
      mark_unfinished(benchmark, info.status, info.error);
    }
    throw;
  }
  if (progress) progress->clear();
  if (!outcome.abandon.empty()) leave_abandoned_job(connector, reporters.get(), info, outcome);
  std::unique_lock finishing(leaving);  // a watchdog firing now (the last step overran) waits for the report
  info.status = "complete";
  info.end_time = iso_time_now();
  if (reporters) note_steal_time(info, outcome.warnings, ticks_at_start);
  info.versions.insert(info.versions.end(), outcome.facts.begin(), outcome.facts.end());
  if (settings.backend_options.huge_pages == HugePages::on && info.version("memory.huge_pages").empty()) {
    outcome.warnings.push_back({"option_ignored", fmt::format("--huge-pages on ignored: the {} backend's buffers are "
                                                              "not host memory", info.backend)});
  }
  outcome.warnings.insert(outcome.warnings.end(), settings.ignored_options.begin(), settings.ignored_options.end());
  info.warnings = outcome.warnings;
  if (reporters) {
    reporters->end(info);
    std::cout.flush();
    print_warnings(outcome.warnings);
    if (outcome.wrong > 0) {
      fmt::print(stderr, "error: {} elements were wrong; the results above are not trustworthy\n", outcome.wrong);
    } else if (!outcome.below_floor.empty()) {
      fmt::print(stderr, "error: below the bandwidth floor: {}\n", outcome.below_floor);
    }
  }
  finishing.unlock();
  if (outcome.exit_code) return *outcome.exit_code;
  if (outcome.wrong > 0) return static_cast<int>(ExitCode::wrong_results);
  // Only the root judged the floor: every rank leaves with its verdict.
  bool below = !outcome.below_floor.empty();
  broadcast_value(connector, below, connector.root_rank());
  return static_cast<int>(below ? ExitCode::below_floor : ExitCode::ok);
}

}  // namespace distbench::cli
