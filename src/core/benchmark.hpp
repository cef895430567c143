// A benchmark, as the runner (cli/runner.hpp) sees it: the runner owns the lifecycle (connect, backend, World,
// checks, RunInfo, reporters, watchdog, signals, warnings, exit code); a benchmark owns what it measures and how it
// is shown. Adding one is a folder of its own under src/benchmarks/ and a src/cli/<name>_cmd.cpp.
#pragma once

#include "core/comm/world.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/layout.hpp"
#include "core/report/record.hpp"
#include "core/report/reporter.hpp"
#include "core/report/run_info.hpp"
#include "core/sys/watchdog.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace distbench {

// Called on the root rank before each row: rows done so far, rows in all, what runs next.
using ProgressFn = std::function<void(std::size_t done, std::size_t total, const std::string& next)>;

struct BenchmarkOutcome {
  std::int64_t wrong = 0;         // wrong elements over every checked record and rank (exit code 3 when > 0)
  std::vector<Warning> warnings;  // root rank only
  std::string below_floor;        // root rank only: why the run is below a floor it was given (exit code 6)
  // A benchmark that judges its own result (health: 0 healthy, 1 degraded, 2 failed) gives the exit code here, the
  // same on every rank; unset: the runner's (0, 3 wrong, 6 below floor).
  std::optional<int> exit_code;
  // Set when the job cannot end normally (ranks stopped answering and may be stuck inside a call): the root marks
  // the report failed with this reason and every process leaves with `exit_code` without finalising MPI; the
  // launcher ends the ranks that do not answer.
  std::string abandon;
  std::optional<StepKind> abandon_step;  // the kind of step it was abandoned in (the report's failed_step)
  // Root rank only: what the run learned about itself while running (memory.buffer_huge_pages), added to the
  // report's versions at the end.
  KeyValues facts;
};

class Benchmark {
 public:
  virtual ~Benchmark() = default;

  // On every rank once the World exists: throws usage_error for what only the ranks can tell (a group that does
  // not divide the world, a root outside it, buffers larger than the device). The runner makes every rank leave
  // the same way when one fails.
  virtual void check(World& world) const = 0;
  // Before check(): the backend's settings the run uses, without those the chosen backend does not read (reset to
  // their defaults, cli/option_scope.hpp), for a benchmark that records or times by them.
  virtual void use_backend_options(const BackendOptions& options) { (void)options; }
  // What the reports say about the run and how they show its records (info.backend is the backend that runs).
  virtual RunDescription describe(const RunInfo& info) const = 0;
  // Collective over the world. Emits each row of records to `reporter` on the root rank (null elsewhere); every
  // step that waits is armed on `watchdog`.
  virtual BenchmarkOutcome run(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress) = 0;
  // The files the benchmark itself writes at its end on the root rank (health's --prom, train's --trace) and those
  // it read (health's --rules), each with its option: the runner checks them beside its reports' before anything
  // runs — each output writable and a regular file or new, none the same file as an input or another output.
  virtual std::vector<NamedPath> output_files() const { return {}; }
  // On the root, before run(): how long each rank took to form the job and how late it began (core/report/startup.hpp),
  // every rank's figures in rank order, for a benchmark that judges them (health: a node that started late).
  virtual void note_startup(const std::vector<StartupRank>& ranks) { (void)ranks; }
  virtual std::vector<NamedPath> input_files() const { return {}; }
  // On the root, when the run ends without its result (interrupted, timed out, failed; `reason` says how): a file
  // that stands for a verdict (health's --prom) is replaced by one that says there is none. Called by the thread
  // that ends the run, perhaps while run() is inside MPI: no MPI here. Throws Error when the file cannot be written.
  virtual void mark_unfinished(const std::string& reason) const { (void)reason; }
};

}  // namespace distbench
