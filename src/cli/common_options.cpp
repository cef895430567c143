#include "cli/common_options.hpp"

#include "backends/registry.hpp"
#include "cli/option_groups.hpp"
#include "cli/parse_errors.hpp"
#include "cli/validators.hpp"
#include "core/comm/bucket_cap.hpp"
#include "core/error.hpp"
#include "core/measure/sizes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>

namespace distbench::cli {

bool nccl_built_in() {
  const auto backends = backend_registry();
  return std::any_of(backends.begin(), backends.end(), [](const BackendEntry& e) { return e.name == "nccl"; });
}

namespace {

// The group of NCCL's settings: Backend where NCCL is built in; else hidden, yet accepted, so that nccl-tests' command
// lines run in every build.
const char* nccl_group() { return nccl_built_in() ? groups::kBackend : groups::kHidden; }

}  // namespace

void add_sampling_options(CLI::App& app, SamplingOptions& o) {
  using namespace groups;
  add_step_count_options(app, o, "Timed samples per case", "Untimed operations first");
  app.add_option("--max-noise", o.max_noise, "Stop when the median's 95% CI is within this, e.g. 2%")
      ->group(kSampling)
      ->option_text("PERCENT")
      ->default_str("off")
      ->transform(percentage(0, 1000));
  app.add_option("--min-samples", o.min_samples, "Samples before the noise or time budget may end a case")
      ->group(kSampling)
      ->option_text("N")
      ->check(in_range(1, 1000000));
  app.add_option("--max-time", o.max_time_s, "Sampling budget per case in seconds; 0: none")
      ->group(kSampling)
      ->option_text("SECONDS")
      ->default_str(fmt::format("{:g}; none when -n is given alone; {:g} with --max-noise",
                                SamplingOptions{}.max_time_s, SamplingOptions::kNoiseMaxTimeS))
      ->check(non_negative_number("seconds"))
      ->each([&o](const std::string&) { o.max_time_given = true; });
}

void add_step_count_options(CLI::App& app, SamplingOptions& o, const std::string& timed, const std::string& untimed) {
  using namespace groups;
  app.add_option("-n,--iters", o.iters, timed)
      ->group(kSampling)
      ->option_text("N")
      ->check(in_range(1, 1000000))
      ->each([&o](const std::string&) { o.iters_given = true; });
  app.add_option("-w,--warmup-iters", o.warmup_iters, untimed)
      ->group(kSampling)
      ->option_text("N")
      ->check(in_range(0, 1000000))
      ->each([&o](const std::string&) { o.warmup_given = true; });
}

void add_sweep_loop_options(CLI::App& app, CommonOptions& o) {
  using namespace groups;
  app.add_flag("--show-faults", o.show_faults, "Add page faults and context switches per operation to the table")
      ->group(kReports);
  const char* nccl = nccl_group();
  app.add_option("-m,--agg-iters", o.agg_iters, "Operations per NCCL group call")
      ->group(nccl)
      ->option_text("N")
      ->check(in_range(1, 100000));
  app.add_option("-G,--cudagraph", o.graph_launches, "Replay the timed loop as a CUDA graph N times; 0: off")
      ->group(nccl)
      ->option_text("N")
      ->check(in_range(0, 100000));
}

void add_common_options(CLI::App& app, CommonOptions& o, std::string_view benchmark) {
  using namespace groups;
  add_report_options(app, o.reports, benchmark);
  app.add_flag("-q,--quiet", o.quiet, "No table and no progress line; warnings and errors still go to stderr")
      ->group(kReports);
  app.add_option("--progress", o.progress, "Progress lines: auto (live on a terminal), on or off")
      ->group(kReports)
      ->option_text("MODE")
      ->check(one_of({"auto", "on", "off"}));

  add_backend_option(app, o.backend);
  const char* nccl = nccl_group();
  app.add_option("-g,--ngpus", o.gpus, "GPUs driven by each process")
      ->group(nccl)
      ->option_text("N")
      ->check(in_range(1, 64));
  app.add_option("-z,--blocking", o.blocking, "NCCL's blocking mode for initialisation and calls")
      ->group(nccl)
      ->option_text("0|1")
      ->check(one_of({"0", "1"}));
  app.add_option("-R,--register", o.register_buffers, "Register buffers with NCCL (allocated by ncclMemAlloc)")
      ->group(nccl)
      ->option_text("0|1")
      ->check(one_of({"0", "1"}));
  app.add_option("--alloc", o.alloc,
                 "Device buffers from cudaMalloc, ncclMemAlloc, or auto: ncclMemAlloc for a collective timed as "
                 "nccl-tests")
      ->group(nccl)
      ->option_text("HOW")
      ->check(one_of({"auto", "cudaMalloc", "ncclMemAlloc"}));
  app.add_option("--huge-pages", o.huge_pages, "Transparent huge pages for host buffers: on or off")
      ->group(kBackend)
      ->option_text("MODE")
      ->check(one_of({"off", "on"}));
  app.add_flag("--malloc-reuse", o.malloc_reuse, "Keep freed memory mapped, so temporaries are not faulted in again")
      ->group(kBackend);

  add_launcher_option(app, o.launcher);
  app.add_option("--mpi-thread", o.mpi_thread, "MPI threads: single, funneled, serialized, multiple")
      ->group(kLaunch)
      ->option_text("LEVEL")
      ->check(one_of({"single", "funneled", "serialized", "multiple"}));
  app.add_option("-T,--timeout", o.timeout_s, "Seconds a step (sample, check, barrier) may take")
      ->group(kLaunch)
      ->option_text("SECONDS")
      ->check(positive_number("seconds"));
}

void add_report_options(CLI::App& app, std::vector<ReportTarget>& reports, std::string_view benchmark) {
  for (const ReportFormat& format : report_formats()) {
    const std::string flag = format.flag_for(benchmark);
    if (flag.empty()) continue;
    CLI::Option* option =
        app.add_option_function<std::string>(
               flag, [&reports, &format](const std::string& path) { set_report_target(reports, format, path); },
               std::string(format.help))
            ->group(groups::kReports)
            ->option_text(format.extension.empty() ? "PATH" : "FILE")
            ->check(non_empty_path());
    if (!format.extension.empty()) option->check(path_ending(format.extension));
  }
}

void add_backend_option(CLI::App& app, std::string& backend) {
  app.add_option(
         "--backend", backend,
         nccl_built_in() ? "nccl, mpi, or auto: nccl when a GPU is visible" : "auto or mpi (this build has no NCCL)")
      ->option_text("NAME")
      ->group(groups::kBackend);
}

void add_launcher_option(CLI::App& app, std::string& launcher) {
  app.add_option("--launcher", launcher, "How the job forms: mpi, env (torchrun), none or auto")
      ->option_text("HOW")
      ->group(groups::kLaunch)
      ->check(one_of({"auto", "mpi", "env", "none"}));
}

StoppingRule stopping_rule(const SamplingOptions& o) {
  StoppingRule rule;
  rule.samples = static_cast<std::size_t>(o.iters);
  rule.max_noise = o.max_noise;
  rule.min_samples = static_cast<std::size_t>(o.min_samples);
  // The time budget: what was given; else 10 s with a noise target, none with an explicit -n, and 0.05 s per case
  // by default (-n 20 samples, fewer when they would outlast it).
  if (o.max_time_given) {
    rule.max_time_s = o.max_time_s;
  } else if (o.max_noise > 0) {
    rule.max_time_s = SamplingOptions::kNoiseMaxTimeS;
  } else {
    rule.max_time_s = o.iters_given ? 0.0 : o.max_time_s;
  }
  if (rule.noise_mode() && rule.max_time_s <= 0) {
    throw usage_error("--max-noise needs a time budget: give --max-time a positive number of seconds");
  }
  return rule;
}

BackendOptions backend_options(const CommonOptions& o) {
  BackendOptions b;
  b.gpus_per_process = o.gpus;
  b.agg_iters = o.agg_iters;
  b.graph_launches = o.graph_launches;
  b.blocking = o.blocking != 0;
  b.register_buffers = o.register_buffers != 0;
  if (b.register_buffers && o.alloc == "cudaMalloc") {
    throw usage_error("-R 1 registers buffers that ncclMemAlloc allocated; drop --alloc cudaMalloc, or -R");
  }
  b.nccl_mem_alloc = b.register_buffers || o.alloc == "ncclMemAlloc";
  b.timeout_s = o.timeout_s;
  b.huge_pages = parse_huge_pages(o.huge_pages);
  return b;
}

std::vector<Warning> given_but_unused(const CLI::App& app, const std::vector<UnusedOption>& unused) {
  std::vector<Warning> out;
  for (const UnusedOption& u : unused) {
    const CLI::Option* opt = app.get_option_no_throw(u.name);
    if (opt == nullptr || opt->count() == 0) continue;
    // A flag is named alone ("--show-faults ignored: ..."), an option with what it was given ("-n/--iters 3").
    const std::string given =
        opt->get_expected_max() == 0 ? std::string() : fmt::format(" {}", fmt::join(opt->results(), ","));
    out.push_back({"option_ignored", fmt::format("{}{} ignored: {}", shown_names(*opt), given, u.why)});
  }
  return out;
}

void add_bucket_option(CLI::App& app, double& bucket_mb, const std::string& what, const std::string& zero_means,
                       const char* group) {
  CLI::Option* bucket = app.add_option_function<std::string>(
                               "--bucket",
                               [&bucket_mb](const std::string& text) {
                                 bucket_mb =
                                     static_cast<double>(parse_size_option("--bucket", text)) / (1024.0 * 1024.0);
                               },
                               fmt::format("{}, e.g. {:g}M; 0: {}", what, kDdpBucketMiB, zero_means))
                            ->option_text("SIZE")
                            ->default_str(fmt::format("{:g}M", kDdpBucketMiB))
                            ->group(group);
  app.add_option("--bucket-mb", bucket_mb, "the same in MiB (the older spelling)")
      ->option_text("MIB")
      ->group(groups::kHidden)
      ->excludes(bucket);
}

}  // namespace distbench::cli
