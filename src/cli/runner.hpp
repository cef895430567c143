// The run lifecycle, once, for every subcommand that starts ranks: connect, choose the backend the same way on
// every rank, build the World, check (writable outputs, then the benchmark's own checks), describe the run, start
// the reporters on the root, arm the watchdog and the signal handler (each marks the report failed and ends the
// job), run the benchmark, print its warnings and return the exit code. Every way a run ends early (a timeout, a
// signal, a broken job, an error, an abandoned job) is in cli/run_ending.hpp.
#pragma once

#include "cli/command.hpp"
#include "cli/common_options.hpp"
#include "cli/option_scope.hpp"
#include "core/benchmark.hpp"

#include <optional>
#include <string>

namespace distbench::cli {

// What the runner takes from the common options.
struct RunSettings {
  std::string backend = "auto";
  std::string launcher = "auto";
  std::string mpi_thread = "single";
  BackendOptions backend_options;
  double timeout_s = 300.0;
  std::vector<ReportTarget> reports;  // the report files, in the formats table's order ("-": stdout, at the end)
  std::string progress = "auto";      // --progress: auto, on, off
  bool quiet = false;                 // -q: no table
  bool malloc_reuse = false;
  int timeout_exit_code = 4;  // what the watchdog ends the job with (health: 3, unknown, as monitoring expects)
  // How long the ranks wait for each other at the end of the run (the farewell), when it is not timeout_s (health:
  // -T, whose watchdog is a backstop of several times -T).
  double leave_timeout_s = 0;
  // The bound the ranks hold each other to outside the watchdog's own steps: leave_timeout_s, else timeout_s.
  double leave_bound_s() const { return leave_timeout_s > 0 ? leave_timeout_s : timeout_s; }
  // What a run ended by a signal exits with; unset: 128 + the signal, as a shell reports it (health: 3, unknown, so
  // that every ending it can act on stays within the 0-3 a monitoring system reads).
  std::optional<int> interrupted_exit_code;
  // Whether the ranks' CPUs moving during the run is a warning (health: no, its verdicts do not rest on where the
  // host placed them; the readings are in the report either way).
  bool cpu_distance_warning = true;
  // Options given that the benchmark does not use (cli/common_options.hpp: given_but_unused): warned at the end.
  std::vector<Warning> ignored_options;
  // Options given that only one backend or launcher reads (cli/option_scope.hpp): judged once both are known.
  std::vector<GivenScopedOption> scoped_options;
};
// The settings of the common options `app` declares (and which of its backend's options it was given).
RunSettings run_settings(const CommonOptions& options, const CLI::App& app);

// Runs `benchmark` on every rank; returns the exit code (0, 3 for wrong results, 6 below a floor, or the benchmark's
// own); throws distbench::Error.
int run_benchmark(Invocation& inv, const RunSettings& settings, Benchmark& benchmark);

}  // namespace distbench::cli
