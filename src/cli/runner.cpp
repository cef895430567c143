#include "cli/runner.hpp"

#include "backends/registry.hpp"
#include "cli/cpu_pair_probe.hpp"
#include "cli/gather_run_info.hpp"
#include "cli/malloc_tuning.hpp"
#include "cli/progress.hpp"
#include "cli/run_ending.hpp"
#include "cli/startup_clock.hpp"
#include "core/comm/world.hpp"
#include "core/error.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/console_reporter.hpp"
#include "core/report/report_formats.hpp"
#include "core/report/report_output.hpp"
#include "core/sys/deadline.hpp"
#include "core/sys/environment.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

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
    throw usage_error(
        fmt::format("{} and {} {} go to stdout ('-'), where only one report can go; write the others to "
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
  const auto launcher =
      std::find_if(info.versions.begin(), info.versions.end(), [](const auto& kv) { return kv.first == "launcher"; });
  if (info.world_size != 1 || launcher == info.versions.end() || launcher->second.rfind("none", 0) != 0) return;
  fmt::print(stderr,
             "hint: one process, started without a launcher, communicates only with itself; start several with "
             "'mpirun -np N distbench ...' or 'srun -n N distbench ...'\n");
}

// Checks that only make sense once the ranks exist; every rank leaves the same way when one fails. The root's
// reporters take their files here (another live run writing one of them is refused).
void check_before_run(Connector& connector, World& world, const std::vector<NamedPath>& outputs,
                      const Benchmark& benchmark, ReporterSet* reporters, Watchdog& watchdog) {
  const ArmedStep step = watchdog.arm(StepKind::setup, "checking the run on every rank");
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
  raise_if_any(connector, problem.get(), step);
}

// The backend, chosen the same way on every rank (hosts may differ in what they can run).
const BackendEntry& choose_backend_everywhere(Connector& connector, const std::string& requested, Watchdog& watchdog) {
  const ArmedStep step = watchdog.arm(StepKind::setup, "choosing the backend on every rank");
  const BackendEntry* entry = nullptr;
  std::unique_ptr<Error> problem;
  try {
    entry = &choose_backend(requested, connector);
  } catch (const Error& e) {
    problem = std::make_unique<Error>(e);
  }
  raise_if_any(connector, problem.get(), step);
  const auto names = allgather_string(connector, entry->name, step);
  for (const auto& name : names) {
    if (name != entry->name) {
      throw Error(ExitCode::unavailable,
                  fmt::format("--backend {} resolves to '{}' on some ranks and '{}' on others; name one with --backend",
                              requested, entry->name, name));
    }
  }
  return *entry;
}

// The backend and the world's communicator, created collectively, then a first collective over the world: start-up's
// last phases.
World form_world(Connector& connector, const BackendEntry& entry, const RunSettings& settings,
                 const BackendOptions& options, Watchdog& watchdog, StartupClock& clock) {
  const ArmedStep step = watchdog.arm(StepKind::setup, "creating the backend and the world's communicator");
  World world(connector, entry.create(connector, options), step);
  clock.world_formed = StartupClock::Clock::now();
  const ArmedStep first = watchdog.arm(StepKind::setup, "the first collective over the world (start-up's last phase)");
  time_first_collective(world, clock, settings.timeout_s, first);
  return world;
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

// The root's console output: the progress line and the reporters (null elsewhere).
struct RootOutput {
  std::unique_ptr<ProgressLine> progress;
  std::unique_ptr<ReporterSet> reporters;
};

ProgressMode progress_mode(const RunSettings& settings) {
  return settings.quiet && settings.progress == "auto" ? ProgressMode::off : parse_progress_mode(settings.progress);
}

RootOutput make_root_output(const Connector& connector, const RunSettings& settings, ProgressMode mode) {
  RootOutput out;
  if (!connector.is_root()) return out;
  out.progress = std::make_unique<ProgressLine>(mode, isatty(STDERR_FILENO) != 0);
  out.reporters = make_reporters(settings, out.progress.get());
  return out;
}

// The run as the reports begin it, and what tells the machine's mode then, to be read again at the end: its CPU
// ticks (for the steal time) and how far apart the co-located ranks' CPUs were.
struct RunStart {
  RunInfo info;
  std::optional<CpuTicks> ticks;
  std::unique_ptr<CpuPairProbe> cpus;
  CpuDistance cpu_distance;
  std::vector<Warning> cautions;  // the backend's (Backend::cautions), warned at the end with the benchmark's
  std::vector<Warning> ignored;   // options of another backend or launcher (cli/option_scope.hpp)
};

// How long a reading of the ranks' CPU distance may take (its pings, then as much again to gather them).
constexpr std::chrono::milliseconds kCpuDistanceBudget{200};

RunStart begin_reports(Invocation& inv, Connector& connector, World& world, const BackendEntry& entry,
                       Benchmark& benchmark, ReporterSet* reporters, Watchdog& watchdog) {
  const ArmedStep step = watchdog.arm(StepKind::setup, "gathering the run's facts and beginning the reports");
  RunStart start{
      make_run_info(connector, world, entry, inv.arguments(), step), machine_cpu_ticks(), nullptr, {}, {}, {}};
  start.info.backend = entry.name;  // argv keeps what was asked
  std::vector<std::string> hosts;
  for (const RankInfo& r : start.info.ranks) hosts.push_back(r.host);
  const std::vector<StartupRank> startup = gather_startup(connector, inv.startup, hosts, step);
  if (connector.is_root()) {
    start.info.startup = startup_record(startup);
    benchmark.note_startup(startup);
  }
  for (auto& [code, text] : world.backend().cautions()) start.cautions.push_back({code, text});
  start.cpus = std::make_unique<CpuPairProbe>(connector, step);
  start.cpu_distance = start.cpus->measure(kCpuDistanceBudget);
  if (connector.is_root()) {
    start.info.versions.emplace_back("cpu_distance.start", cpu_distance_text(start.cpu_distance));
    hint_single_process(start.info);
    reporters->begin(start.info, benchmark.describe(start.info));
  }
  return start;
}

// Runs the benchmark, the root's progress line following it; when it throws, the report keeps what was measured.
BenchmarkOutcome measure(World& world, Watchdog& watchdog, Benchmark& benchmark, RootOutput& out, RunEnding& ending) {
  ProgressFn on_progress;
  if (out.progress) {
    on_progress = [progress = out.progress.get()](std::size_t done, std::size_t total, const std::string& next) {
      progress->step(done, total, next);
    };
  }
  try {
    BenchmarkOutcome outcome = benchmark.run(world, watchdog, out.reporters.get(), on_progress);
    if (out.progress) out.progress->clear();
    return outcome;
  } catch (const Error& e) {
    ending.after_error(e, watchdog.unwound_kind(), watchdog.unwound_step());
    throw;
  }
}

// Who answered at the end of the run, and the exit code the root decided.
struct Farewell {
  int code = 0;
  std::vector<int> missing;  // ranks that did not say goodbye in time (the root's view; empty elsewhere)
};

// The end of a run, bounded by `timeout_s` (-T): every rank tells the root it is still here, and the root answers with
// the exit code every rank leaves with (`root_code`: its verdict) and the ranks that did not answer. Without it, a
// rank stopped at the end would hang the others in MPI's goodbye (Open MPI's MPI_Finalize waits for every rank).
// Throws Error(timeout) on a rank that hears nothing from the root.
Farewell say_farewell(Connector& connector, int root_code, double timeout_s) {
  const auto deadline = deadline_after(timeout_s);
  const auto answer_by = deadline_after(2 * timeout_s);  // the others wait past the root's own deadline
  const auto present = connector.gather_until({}, connector.root_rank(), deadline);
  std::string text;
  if (connector.is_root()) {
    text = std::to_string(root_code);
    for (std::size_t r = 0; r < present.size(); ++r) {
      if (!present[r]) text += " " + std::to_string(r);
    }
  }
  try {
    broadcast_string_until(connector, text, connector.root_rank(), answer_by);
  } catch (const Error& e) {
    if (e.code() != ExitCode::timeout) throw;
    throw Error(ExitCode::timeout, fmt::format("the root, rank {}, did not answer at the end of the run within {:g} s "
                                               "(-T/--timeout): stopped, hung or gone",
                                               connector.root_rank(), 2 * timeout_s));
  }
  Farewell out;
  std::istringstream in(text);
  in >> out.code;
  for (int r = 0; in >> r;) out.missing.push_back(r);
  return out;
}

std::string ranks_text(const std::vector<int>& ranks, const RunInfo& info) {
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size() && i < 8; ++i) {
    const int r = ranks[i];
    const auto host = static_cast<std::size_t>(r) < info.ranks.size() ? info.ranks[static_cast<std::size_t>(r)].host
                                                                      : std::string("?");
    out += fmt::format("{}{} ({})", i == 0 ? "" : ", ", r, host);
  }
  if (ranks.size() > 8) out += fmt::format(" and {} more", ranks.size() - 8);
  return out;
}

// The verdict every rank leaves with: the root's (it alone judged the floor).
int verdict_code(const BenchmarkOutcome& outcome) {
  if (outcome.exit_code) return *outcome.exit_code;
  if (outcome.wrong > 0) return static_cast<int>(ExitCode::wrong_results);
  if (!outcome.below_floor.empty()) return static_cast<int>(ExitCode::below_floor);
  return static_cast<int>(ExitCode::ok);
}

// The watchdog is the backstop behind the farewell's own deadlines (the root's, then the others' as long again).
Farewell leave_together(Connector& connector, Watchdog& watchdog, int root_code, double bound) {
  const ArmedStep step =
      watchdog.arm(StepKind::finish, "leaving together: every rank present, the verdict shared", 3 * bound + 1);
  return say_farewell(connector, root_code, bound);
}

// Why the run ends abandoned after all, or nothing: a rank the root did not hear from, or this rank frozen too long.
std::string abandoned_at_farewell(const Farewell& farewell, const Watchdog& watchdog, const RunInfo& info,
                                  double bound) {
  if (!farewell.missing.empty()) {
    return fmt::format(
        "{} did not answer at the end of the run within {:g} s (-T/--timeout): stopped, "
        "hung or gone; every case above was measured",
        ranks_text(farewell.missing, info), bound);
  }
  if (const std::optional<double> frozen = watchdog.frozen_longer_than(bound)) {
    // This rank was stopped (or its host frozen) as the run ended, longer than the others wait for each other: they
    // have given up on it and are leaving.
    return fmt::format(
        "this rank was stopped (or its host frozen) for {:.1f} s as the run ended: the "
        "others did not wait past {:g} s (-T/--timeout); every case above was measured",
        *frozen, bound);
  }
  return {};
}

// The complete report's run info and warnings: the benchmark's, the machine's, the backend's cautions, then the
// options it ignored.
void complete_run_info(RunInfo& info, BenchmarkOutcome& outcome, const RunSettings& settings, const RunStart& start,
                       const CpuDistance& cpu_distance, bool root) {
  info.status = "complete";
  info.end_time = iso_time_now();
  if (root) {
    note_steal_time(info, outcome.warnings, start.ticks);
    if (auto late = late_start_warning(info.startup)) outcome.warnings.push_back(std::move(*late));
    std::vector<Warning> moved;
    note_cpu_distance(info, moved, start.cpu_distance, cpu_distance);
    if (settings.cpu_distance_warning) outcome.warnings.insert(outcome.warnings.end(), moved.begin(), moved.end());
  }
  info.versions.insert(info.versions.end(), outcome.facts.begin(), outcome.facts.end());
  if (settings.backend_options.huge_pages == HugePages::on && info.version("memory.huge_pages").empty()) {
    outcome.warnings.push_back({"option_ignored", fmt::format("--huge-pages on ignored: the {} backend's buffers are "
                                                              "not host memory",
                                                              info.backend)});
  }
  outcome.warnings.insert(outcome.warnings.end(), start.cautions.begin(), start.cautions.end());
  outcome.warnings.insert(outcome.warnings.end(), settings.ignored_options.begin(), settings.ignored_options.end());
  outcome.warnings.insert(outcome.warnings.end(), start.ignored.begin(), start.ignored.end());
  info.warnings = outcome.warnings;
}

// The root's complete report, its warnings and the verdict on stderr.
void write_complete_report(ReporterSet& reporters, const RunInfo& info, const BenchmarkOutcome& outcome,
                           Watchdog& watchdog) {
  const ArmedStep writing = watchdog.arm(StepKind::report, "writing the complete report");
  reporters.end(info);
  std::cout.flush();
  print_warnings(outcome.warnings);
  if (outcome.wrong > 0) {
    fmt::print(stderr, "error: {} elements were wrong; the results above are not trustworthy\n", outcome.wrong);
  } else if (!outcome.below_floor.empty()) {
    fmt::print(stderr, "error: below the bandwidth floor: {}\n", outcome.below_floor);
  }
}

// The run finished: every rank leaves together with the root's verdict, the root writes the complete report, and
// each returns the exit code every rank leaves with.
int finish(Connector& connector, const RunSettings& settings, RunStart start, BenchmarkOutcome outcome,
           ReporterSet* reporters, RunEnding& ending, Watchdog& watchdog) {
  RunInfo& info = start.info;
  const CpuDistance cpu_distance = start.cpus->measure(kCpuDistanceBudget);  // collective (bounded): before the report
  const double bound = settings.leave_bound_s();
  const Farewell farewell = leave_together(connector, watchdog, verdict_code(outcome), bound);
  if (std::string why = abandoned_at_farewell(farewell, watchdog, info, bound); !why.empty()) {
    outcome.abandon = std::move(why);
  }
  if (!outcome.abandon.empty()) {
    outcome.exit_code = settings.timeout_exit_code;
    ending.abandon(outcome, StepKind::finish);
  }
  std::unique_lock finishing = ending.hold();  // a watchdog firing now (the last step overran) waits for the report
  complete_run_info(info, outcome, settings, start, cpu_distance, reporters != nullptr);
  if (reporters) write_complete_report(*reporters, info, outcome, watchdog);
  finishing.unlock();
  ending.reports_closed();
  return farewell.code;
}

// The run in its world: the backend, the communicators, the reports, the benchmark and its verdict. The world ends
// with it, before the job does.
int run_in_world(Invocation& inv, Connector& connector, const RunSettings& settings, Benchmark& benchmark,
                 const std::vector<NamedPath>& outputs, ProgressMode mode, RunEnding& ending, Watchdog& watchdog) {
  const FailureHandlerScope on_broken_job(connector, ending.on_broken_job());
  const BackendEntry& entry = choose_backend_everywhere(connector, settings.backend, watchdog);
  inv.startup.backend_chosen = StartupClock::Clock::now();
  // What another backend or launcher would have read is said, and neither used nor recorded.
  OptionScope scope = scope_options(settings.scoped_options, settings.backend_options, entry.name, connector.kind());
  benchmark.use_backend_options(scope.backend_options);
  World world = form_world(connector, entry, settings, scope.backend_options, watchdog, inv.startup);
  RootOutput out = make_root_output(connector, settings, mode);
  check_before_run(connector, world, outputs, benchmark, out.reporters.get(), watchdog);
  RunStart start = begin_reports(inv, connector, world, entry, benchmark, out.reporters.get(), watchdog);
  start.ignored = std::move(scope.ignored);
  ending.report_to(out.progress.get(), out.reporters.get(), start.info);

  BenchmarkOutcome outcome = measure(world, watchdog, benchmark, out, ending);
  if (!outcome.abandon.empty()) ending.abandon(outcome, outcome.abandon_step);
  return finish(connector, settings, std::move(start), std::move(outcome), out.reporters.get(), ending, watchdog);
}

}  // namespace

RunSettings run_settings(const CommonOptions& options, const CLI::App& app) {
  RunSettings s;
  s.scoped_options = given_scoped_options(app);
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

// The steps of a run; every way it can end early goes through `ending` (cli/run_ending.hpp).
int run_benchmark(Invocation& inv, const RunSettings& settings, Benchmark& benchmark) {
  // Refuses what no rank need see, before MPI.
  const std::vector<NamedPath> outputs = output_files(settings, benchmark);
  const ProgressMode mode = progress_mode(settings);
  if (settings.malloc_reuse) apply_malloc_reuse();  // before MPI allocates anything
  // The launcher bounds MPI's start, env:// its rendezvous (-T); from the job on, every wait is a step of the watchdog.
  inv.startup.connect_begun = StartupClock::Clock::now();
  Connector& connector = inv.connect({settings.launcher, settings.timeout_s, settings.mpi_thread});
  inv.startup.connected = StartupClock::Clock::now();
  RunEnding ending(connector, settings, benchmark);
  Watchdog watchdog(settings.timeout_s, ending.on_timeout());
  TerminationSignals::Scoped on_signal(*inv.signals, ending.on_signal(watchdog));
  const int code = run_in_world(inv, connector, settings, benchmark, outputs, mode, ending, watchdog);
  // Every rank said goodbye; what is left of the job's end waits for them all, so under the watchdog too.
  const ArmedStep step =
      watchdog.arm(StepKind::finish, "leaving the job (the connector's end: MPI_Finalize)", settings.leave_bound_s());
  inv.disconnect();
  return code;
}

}  // namespace distbench::cli
