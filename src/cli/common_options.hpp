// The options every benchmark that starts ranks shares: samples and warm-up and the stopping rule (Sampling), report
// files and the console (Reports), the backend and its flags (Backend), how the job forms and the watchdog's -T
// (Launch); each subcommand adds them, telling which of them its benchmark has no use for. The sweep-only flags
// (sizes, dtypes, operators, root, placement, groups) stay with the sweep.
#pragma once

#include "core/backend.hpp"
#include "core/record.hpp"
#include "core/report/report_formats.hpp"
#include "core/stopping.hpp"

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace distbench::cli {

struct CommonOptions {
  std::string backend = "auto";
  std::string launcher = "auto";  // --launcher: how the job forms (connectors/launch_choice.hpp)
  std::string mpi_thread = "single";  // --mpi-thread: MPI_Init_thread's level
  int gpus = 1;
  int agg_iters = 1;
  int graph_launches = 0;
  int blocking = 0;
  int register_buffers = 0;
  std::string alloc = "auto";  // --alloc: auto, cudaMalloc or ncclMemAlloc (device buffers)
  double timeout_s = 300.0;
  std::vector<ReportTarget> reports;  // --json, --csv, --md, ...: one option per report format
  int iters = 20;
  int warmup_iters = 5;
  double max_noise = 0.0;
  int min_samples = 10;
  double max_time_s = 0.05;  // count mode's budget; 10 s in noise mode unless given
  std::string progress = "auto";  // auto, on, off (see cli/progress.hpp)
  bool quiet = false;             // no table on the console (warnings and errors still go to stderr)
  bool show_faults = false;
  bool malloc_reuse = false;
  std::string huge_pages = "off";  // --huge-pages: off (malloc's policy) or on (numpy's)
  bool iters_given = false;
  bool warmup_given = false;
  bool max_time_given = false;
};

// An option a subcommand's benchmark has no use for, and what to use instead.
struct UnusedOption {
  std::string name;  // a name of the option: "--iters"
  std::string why;   // "train times --steps steps; give --steps"
};

// Adds the common options to a subcommand, each in its help group (cli/option_groups.hpp). Those named in `unused`
// (the benchmark never uses them) are accepted but hidden from its --help; warn about them with given_but_unused.
// NCCL's options (-g, -m, -G, -z, -R, --alloc) show only in a build with NCCL, and are accepted in every build.
void add_common_options(CLI::App& app, CommonOptions& options, const std::vector<UnusedOption>& unused = {});
// One option per report format (core/report/report_formats.hpp), in the Reports group, each adding its report to
// `reports`; those named in `unused` hidden, as above. Every command that runs a benchmark takes them from here.
void add_report_options(CLI::App& app, std::vector<ReportTarget>& reports,
                        const std::vector<UnusedOption>& unused = {});
// One option_ignored warning for each of `unused` that the command line gave `app`, so that no option given is
// dropped without a word.
std::vector<Warning> given_but_unused(const CLI::App& app, const std::vector<UnusedOption>& unused);

// --bucket SIZE (1M = 1 MiB, as every size; 0: as `zero_means` says) into `bucket_mb` (MiB), and the older
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
StoppingRule stopping_rule(const CommonOptions& options);
// The backend's settings from the options (-g, -m, -G, -z, -R, --alloc, -T); --alloc auto reads as cudaMalloc here
// (a benchmark whose peer allocates otherwise resolves it first). Throws usage_error for -R with cudaMalloc.
BackendOptions backend_options(const CommonOptions& options);

}  // namespace distbench::cli
