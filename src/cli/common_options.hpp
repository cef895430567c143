// The option groups of the subcommands that run a benchmark, each declared only by the benchmarks that use it:
// Sampling (samples, warm-up, the stopping rule; or only the step counts, for a benchmark that times a fixed number of
// steps), the sweep's loop (fault columns, nccl-tests' -m and -G: the collectives'), and every run's Reports (report
// files, the console), Backend (the backend and its flags) and Launch (how the job forms, the watchdog's -T). A flag
// a benchmark does not declare is unknown to it (exit 2), so its --help lists only what it reads. The sweep-only flags
// (sizes, dtypes, operators, root, placement, groups) stay with the sweep.
#pragma once

#include "core/comm/backend.hpp"
#include "core/measure/stopping.hpp"
#include "core/report/record.hpp"
#include "core/report/report_formats.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace distbench::cli {

// The Sampling group: what a benchmark that samples reads (the collectives, latency, zero).
struct SamplingOptions {
  static constexpr double kNoiseMaxTimeS = 10.0;  // --max-time with a noise target, unless given
  int iters = 20;
  int warmup_iters = 5;
  double max_noise = 0.0;
  int min_samples = 10;
  double max_time_s = 0.05;  // count mode's budget; kNoiseMaxTimeS in noise mode unless given
  bool iters_given = false;
  bool warmup_given = false;
  bool max_time_given = false;
};

// The groups every run has (Reports, Backend, Launch), and the fields of the sweep's loop options.
struct CommonOptions {
  std::string backend = "auto";
  std::string launcher = "auto";      // --launcher: how the job forms (connectors/launch_choice.hpp)
  std::string mpi_thread = "single";  // --mpi-thread: MPI_Init_thread's level
  int gpus = 1;
  int agg_iters = 1;       // -m: the sweep's loop (add_sweep_loop_options)
  int graph_launches = 0;  // -G: the sweep's loop
  int blocking = 0;
  int register_buffers = 0;
  std::string alloc = "auto";  // --alloc: auto, cudaMalloc or ncclMemAlloc (device buffers)
  double timeout_s = 300.0;
  std::vector<ReportTarget> reports;  // --json, --csv, --md, ...: one option per report format
  std::string progress = "auto";      // auto, on, off (see cli/progress.hpp)
  bool quiet = false;                 // no table on the console (warnings and errors still go to stderr)
  bool show_faults = false;           // --show-faults: the sweep's loop
  bool malloc_reuse = false;
  std::string huge_pages = "off";  // --huge-pages: off (malloc's policy) or on (2 MiB-aligned, advised)
};

// An option of a subcommand that the run the other options chose has no use for, and why (a benchmark's options
// that it never uses are not declared at all).
struct UnusedOption {
  std::string name;  // a name of the option: "--in"
  std::string why;   // "it sizes a layer; add --layer to measure layers"
};

// Every run's groups: Reports (one option per report format, -q, --progress), Backend (--backend; NCCL's -g, -z, -R,
// --alloc, shown only in a build with NCCL and accepted in every build; --huge-pages, --malloc-reuse) and Launch
// (--launcher, --mpi-thread, -T). `benchmark`: the records the command writes ("collective"), for the report
// formats of that benchmark alone.
void add_common_options(CLI::App& app, CommonOptions& options, std::string_view benchmark = {});
// The Sampling group: -n, -w, --max-noise, --min-samples, --max-time.
void add_sampling_options(CLI::App& app, SamplingOptions& options);
// Of the Sampling group only the step counts, -n (`timed`) and -w (`untimed`), for a benchmark that times exactly -n
// steps after -w, with no stopping rule (tp).
void add_step_count_options(CLI::App& app, SamplingOptions& options, const std::string& timed,
                            const std::string& untimed);
// The sweep's loop: --show-faults (fault columns), nccl-tests' -m (operations per group call) and -G (a captured
// loop); -m and -G shown only in a build with NCCL and accepted in every build (the collectives').
void add_sweep_loop_options(CLI::App& app, CommonOptions& options);
// One option per report format (core/report/report_formats.hpp), in the Reports group, each adding its report to
// `reports`. Every command that runs a benchmark takes them from here; a format of one benchmark only on its commands.
void add_report_options(CLI::App& app, std::vector<ReportTarget>& reports, std::string_view benchmark = {});
// One option_ignored warning for each of `unused` that the command line gave `app`, so that no option given is
// dropped without a word.
std::vector<Warning> given_but_unused(const CLI::App& app, const std::vector<UnusedOption>& unused);

// --bucket SIZE (1M = 1 MiB, as every size; 0: as `zero_means` says; kDdpBucketMiB by default, the one
// definition train, zero and this help share) into `bucket_mb` (MiB), and the older
// --bucket-mb MIB kept as a hidden alias; giving both is an error.
void add_bucket_option(CLI::App& app, double& bucket_mb, const std::string& what, const std::string& zero_means,
                       const char* group);
// --launcher auto|mpi|env|none, for every command that forms a job (the common options, health, info).
void add_launcher_option(CLI::App& app, std::string& launcher);
// --backend, its help naming the backends this build has (the common options, health, info).
void add_backend_option(CLI::App& app, std::string& backend);
// Whether this build has the NCCL backend (backends/registry.hpp).
bool nccl_built_in();

// The stopping rule the options ask for: -n samples within a 0.05 s budget by default, exactly -n when -n is given
// alone, a noise target with 10 s by default; throws usage_error for a noise target without a time budget.
StoppingRule stopping_rule(const SamplingOptions& options);
// The backend's settings from the options (-g, -m, -G, -z, -R, --alloc, -T); --alloc auto reads as cudaMalloc here
// (a benchmark whose peer allocates otherwise resolves it first). Throws usage_error for -R with cudaMalloc.
BackendOptions backend_options(const CommonOptions& options);

}  // namespace distbench::cli
