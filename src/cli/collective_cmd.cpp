// `distbench <collective>`: one subcommand per collective, all with the same options.
#include "backends/registry.hpp"
#include "cli/collective_options.hpp"
#include "cli/command.hpp"
#include "cli/run_info.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/malloc_tuning.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/console_reporter.hpp"
#include "core/report/csv_reporter.hpp"
#include "core/report/json_reporter.hpp"
#include "core/report/markdown_reporter.hpp"
#include "core/sweep.hpp"
#include "core/world.hpp"
#include "version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

namespace distbench::cli {
namespace {

// Live progress on a terminal, for sweeps that take more than a few seconds.
class Progress {
 public:
  Progress() : live_(isatty(STDERR_FILENO) != 0), began_(std::chrono::steady_clock::now()) {}

  void operator()(std::size_t done, std::size_t total, const std::string& next) {
    if (!live_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - began_).count();
    if (done == total) {
      if (shown_) fmt::print(stderr, "\r\033[K");
      return;
    }
    if (elapsed < 2.0) return;
    shown_ = true;
    fmt::print(stderr, "\r\033[K[{}/{}] {} ({:.0f} s)", done + 1, total, next, elapsed);
    std::fflush(stderr);
  }

 private:
  bool live_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point began_;
};

// Reports of the root rank; empty elsewhere. The files come first: when a failing run has a second to say why,
// the reports on disk matter most.
std::unique_ptr<ReporterSet> make_reporters(const SweepPlan& plan) {
  auto set = std::make_unique<ReporterSet>();
  if (!plan.json_path.empty()) set->push(std::make_unique<JsonReporter>(plan.json_path));
  if (!plan.csv_path.empty()) set->push(std::make_unique<CsvReporter>(plan.csv_path));
  if (!plan.md_path.empty()) set->push(std::make_unique<MarkdownReporter>(plan.md_path));
  set->push(std::make_unique<ConsoleReporter>(std::cout));
  return set;
}

// Checks that only make sense once the ranks exist; every rank leaves the same way when one fails.
void check_before_run(Connector& connector, World& world, const SweepPlan& plan) {
  std::unique_ptr<Error> problem;
  try {
    if (connector.is_root()) {
      if (!plan.json_path.empty()) check_writable(plan.json_path);
      if (!plan.csv_path.empty()) check_writable(plan.csv_path);
      if (!plan.md_path.empty()) check_writable(plan.md_path);
    }
    const int nranks = static_cast<int>(sweep_partition(plan, connector.size()).groups.front().size());
    check_root(plan, nranks);
    const std::uint64_t need = sweep_buffer_bytes(plan, nranks);
    const std::uint64_t have = world.device().memory_available(connector.local_size());
    if (have != 0 && need > have) {
      throw usage_error(fmt::format(
          "the sweep needs {} bytes of buffers per rank but only {} are available to each of the {} ranks on {}; "
          "lower -e/--maxbytes",
          need, have, connector.local_size(), connector.hostname()));
    }
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
    entry = &choose_backend(requested);
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

int run_collective(Collective collective, const CollectiveOptions& options, Invocation& inv) {
  SweepPlan plan = make_plan(collective, options);  // bad input fails here, before MPI starts
  if (plan.malloc_reuse) apply_malloc_reuse();       // before MPI allocates anything
  Connector& connector = inv.connect();
  const BackendEntry& entry = choose_backend_everywhere(connector, plan.backend);
  plan.backend = entry.name;  // reports record the backend that ran (argv keeps what was asked)
  World world(connector, entry.create(connector, plan.backend_options));
  check_before_run(connector, world, plan);

  RunInfo info = make_run_info(connector, world, entry, inv.arguments());
  std::unique_ptr<ReporterSet> reporters;
  if (connector.is_root()) {
    reporters = make_reporters(plan);
    reporters->begin(info, plan);
  }

  // Marks the report failed (on the root) and ends this process without calling MPI: the watchdog and signal
  // threads run while the main thread may be inside MPI. The launcher then ends the other ranks.
  std::mutex leaving;
  auto fail_and_exit = [&leaving, &reporters, info](const std::string& message, int exit_code) {
    std::lock_guard lock(leaving);  // the first of the watchdog and a signal decides
    if (reporters) {
      RunInfo failed = info;
      failed.status = "failed";
      failed.error = message;
      failed.end_time = iso_time_now();
      try {
        reporters->end(failed);
      } catch (const std::exception& e) {  // leaving anyway: say why the report may be stale
        fmt::print(stderr, "error: the report could not be marked failed: {}\n", e.what());
      }
    }
    std::cout.flush();
    std::fflush(stderr);
    std::_Exit(exit_code);
  };

  // On a hang: name the step and this rank, mark the report failed, and end the job with exit code 4.
  Watchdog watchdog(plan.timeout_s, [&connector, &fail_and_exit](const std::string& step, double timeout_s) {
    const std::string message = fmt::format("{} did not finish within {:g} s (-T/--timeout)", step, timeout_s);
    fmt::print(stderr, "error: rank {} ({}): {}; ending the job\n", connector.rank(), connector.hostname(), message);
    std::fflush(stderr);
    // The root writes the report and leaves at once; the others give it (and each other) a moment to say why
    // before their exit makes the launcher end the job.
    if (!connector.is_root()) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    fail_and_exit(message, static_cast<int>(ExitCode::timeout));
  });

  // Ended from outside (the launcher, after another rank failed or timed out; or Ctrl-C): keep the report's word.
  TerminationSignals::Scoped on_signal(*inv.signals, [&watchdog, &fail_and_exit](int signal) {
    const std::string step = watchdog.step();
    fail_and_exit(fmt::format("ended by signal {} ({}){}; when launched by mpirun, another rank failed or timed out "
                              "first: see its error line",
                              signal, strsignal(signal), step.empty() ? "" : fmt::format(" during {}", step)),
                  exit_status_for_signal(signal));
  });

  Progress progress;
  SweepOutcome outcome;
  try {
    outcome = run_sweep(world, plan, watchdog, reporters.get(), std::ref(progress));
  } catch (const Error& e) {
    if (reporters) {  // keep what was measured, and say why it stopped
      info.status = "failed";
      info.error = e.what();
      info.end_time = iso_time_now();
      reporters->end(info);
    }
    throw;
  }
  info.status = "complete";
  info.end_time = iso_time_now();
  if (reporters) {
    reporters->end(info);
    std::cout.flush();
    for (const auto& warning : outcome.warnings) fmt::print(stderr, "warning: {}\n", warning);
    if (outcome.wrong > 0) {
      fmt::print(stderr, "error: {} elements were wrong; the results above are not trustworthy\n", outcome.wrong);
    }
  }
  return static_cast<int>(outcome.wrong > 0 ? ExitCode::wrong_results : ExitCode::ok);
}

}  // namespace

void add_collective_commands(CLI::App& root, Commands& commands) {
  for (Collective c : all_collectives()) {
    auto* app = root.add_subcommand(std::string(name(c)), std::string(traits(c).description));
    auto options = std::make_shared<CollectiveOptions>();
    add_collective_options(*app, *options);
    commands.push_back({app, [c, options](Invocation& inv) { return run_collective(c, *options, inv); }});
  }
}

}  // namespace distbench::cli
