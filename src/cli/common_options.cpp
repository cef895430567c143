#include "cli/common_options.hpp"

#include "cli/parse_errors.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace distbench::cli {

void add_common_options(CLI::App& app, CommonOptions& o) {
  app.add_option("-n,--iters", o.iters,
                 "Timed samples per case (each times k operations, k calibrated per case; nccl-tests' -n counts "
                 "single operations); by default fewer when they would outlast --max-time; given, exactly this many "
                 "unless --max-time is given too")
      ->check(in_range(1, 1000000))
      ->each([&o](const std::string&) { o.iters_given = true; });
  app.add_option("-w,--warmup-iters", o.warmup_iters,
                 "Untimed operations before sampling (5; 1 under --timing nccl-tests, which also runs them at every size "
                 "before the sweep, as all_reduce_perf)")
      ->check(in_range(0, 1000000))
      ->each([&o](const std::string&) { o.warmup_given = true; });
  app.add_option("-T,--timeout", o.timeout_s, "Seconds any single step (a sample, a check, a barrier) may take")
      ->check(positive_number("seconds"));
  app.add_option("-J,--json", o.json,
                 "Write a JSON report here (rewritten after every size, paced by its cost; -J as in nccl-tests); '-': to stdout at the end, "
                 "the table then going to stderr")->check(non_empty_path());
  app.add_option("--csv", o.csv, "Write a CSV report here (rewritten after every size, paced by its cost); '-': to stdout at the end")->check(non_empty_path());
  app.add_option("--md", o.md,
                 "Write a Markdown report here, e.g. for a pull-request comment (rewritten after every size, paced by its cost); '-': "
                 "to stdout at the end")->check(non_empty_path());
  app.add_flag("-q,--quiet", o.quiet, "No table and no progress line; warnings and errors still go to stderr");
  app.add_option("--progress", o.progress,
                 "auto: a live line on a terminal, else a line on stderr for a case still running after 5 s; on: a "
                 "line for every case as it starts; off: none")
      ->check(one_of({"auto", "on", "off"}));
  app.add_option("--max-noise", o.max_noise,
                 "Sample until the median's 95% confidence interval is within this, e.g. 2% (0: -n samples)")
      ->transform(percentage(0, 1000));
  app.add_option("--min-samples", o.min_samples,
                 "Samples taken before the noise is judged or the time budget cuts a case short")
      ->check(in_range(1, 1000000));
  app.add_option("--max-time", o.max_time_s,
                 "Seconds of sampling per case at most (default 0.05; with --max-noise 10; 0: no budget)")
      ->check(non_negative_number("seconds"))
      ->each([&o](const std::string&) { o.max_time_given = true; });
  app.add_flag("--show-faults", o.show_faults,
               "Show page faults and context switches per operation in the table (the reports always have them)");
  app.add_flag("--malloc-reuse", o.malloc_reuse,
               "Keep freed memory mapped (mallopt M_MMAP_MAX=0, M_TRIM_THRESHOLD=2G before MPI starts), so a "
               "library's per-call temporary buffers are not faulted in afresh on every call");
  app.add_option("--huge-pages", o.huge_pages,
                 "Transparent huge pages for host buffers (mpi): off (default: what malloc gets, as IMB and OSU) or "
                 "on (buffers from 2 MiB advised MADV_HUGEPAGE, as numpy does); matters when the machine's THP mode "
                 "is madvise; the report says what the buffers got")
      ->check(one_of({"off", "on"}));
  app.add_option("--backend", o.backend, "auto (nccl when a GPU is visible and built in, else mpi), mpi or nccl");
  add_launcher_option(app, o.launcher);
  app.add_option("--mpi-thread", o.mpi_thread,
                 "MPI's thread level for an MPI launch: single (default, as IMB and OSU run), funneled, serialized or "
                 "multiple; Open MPI takes its thread-safe paths above single, at a cost per small call; the report "
                 "says which level ran")
      ->check(one_of({"single", "funneled", "serialized", "multiple"}));
  app.add_option("-g,--ngpus", o.gpus, "GPUs driven by each process (nccl)")->check(in_range(1, 64));
  app.add_option("-m,--agg-iters", o.agg_iters, "Operations aggregated per NCCL group call (nccl)")
      ->check(in_range(1, 100000));
  app.add_option("-G,--cudagraph", o.graph_launches,
                 "Capture the timed loop in a CUDA graph and replay it this many times (nccl; 0: off)")
      ->check(in_range(0, 100000));
  app.add_option("-z,--blocking", o.blocking, "Blocking NCCL initialisation and calls (nccl; 0 or 1)")
      ->check(one_of({"0", "1"}));
  app.add_option("-R,--register", o.register_buffers, "Register buffers with NCCL (nccl; 0 or 1)")
      ->check(one_of({"0", "1"}));
  app.add_option("--alloc", o.alloc,
                 "Where device buffers come from (nccl): cudaMalloc, ncclMemAlloc (what nccl-tests allocates with "
                 "since NCCL 2.19; -R needs it) or auto (ncclMemAlloc for a collective under nccl-tests' timing, "
                 "else cudaMalloc)")
      ->check(one_of({"auto", "cudaMalloc", "ncclMemAlloc"}));
}

void add_launcher_option(CLI::App& app, std::string& launcher) {
  app.add_option("--launcher", launcher,
                 "How the processes form a job: auto (an MPI launcher's variables: MPI; else torchrun's RANK and "
                 "WORLD_SIZE: env://; else MPI's singleton, or this process alone without MPI), mpi, env (MASTER_ADDR, "
                 "MASTER_PORT, RANK, WORLD_SIZE: rank 0 listens, the others connect, within -T), none (this process "
                 "alone)")
      ->check(one_of({"auto", "mpi", "env", "none"}));
}

StoppingRule stopping_rule(const CommonOptions& o) {
  StoppingRule rule;
  rule.samples = static_cast<std::size_t>(o.iters);
  rule.max_noise = o.max_noise;
  rule.min_samples = static_cast<std::size_t>(o.min_samples);
  // The time budget: what was given; else 10 s with a noise target, none with an explicit -n, and 0.05 s per case
  // by default (-n 20 samples, fewer when they would outlast it).
  if (o.max_time_given) {
    rule.max_time_s = o.max_time_s;
  } else if (o.max_noise > 0) {
    rule.max_time_s = 10.0;
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
    out.push_back({"option_ignored", fmt::format("{} {} ignored: {}", shown_names(*opt), fmt::join(opt->results(), ","),
                                                 u.why)});
  }
  return out;
}

}  // namespace distbench::cli
