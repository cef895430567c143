#include "cli/collective_options.hpp"

#include "core/error.hpp"
#include "core/sizes.hpp"

#include <CLI/CLI.hpp>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

namespace distbench::cli {
namespace {

template <typename T, typename Parse, typename All>
std::vector<T> parse_list(const std::vector<std::string>& texts, Parse parse, All all, std::string_view what,
                          std::string_view flag) {
  std::vector<T> out;
  for (const auto& text : texts) {
    if (text == "all") {
      out.assign(all().begin(), all().end());
      return out;
    }
    const auto value = parse(text);
    if (!value) {
      std::vector<std::string> names;
      for (T t : all()) names.emplace_back(name(t));
      throw usage_error(fmt::format("unknown {} '{}'; {} takes one of {}, a comma-separated list, or 'all'", what,
                                    text, flag, fmt::join(names, ", ")));
    }
    if (std::find(out.begin(), out.end(), *value) == out.end()) out.push_back(*value);
  }
  return out;
}

bool asked_for_all(const std::vector<std::string>& texts) {
  return std::find(texts.begin(), texts.end(), "all") != texts.end();
}

}  // namespace

void add_collective_options(CLI::App& app, CollectiveOptions& o) {
  app.add_option("-b,--minbytes", o.minbytes, "Smallest message size S in bytes (K, M, G suffixes are binary)");
  app.add_option("-e,--maxbytes", o.maxbytes, "Largest message size S in bytes");
  app.add_option("-f,--stepfactor", o.stepfactor, "Multiply the size by this factor between steps (> 1)")
      ->each([&o](const std::string&) { o.stepfactor_given = true; });
  app.add_option("-i,--stepbytes", o.stepbytes, "Add this many bytes between steps instead of multiplying")
      ->each([&o](const std::string&) { o.stepbytes_given = true; });
  app.add_option("-n,--iters", o.iters,
                 "Timed samples per case (each times k operations); by default fewer when they would outlast "
                 "--max-time; given, exactly this many unless --max-time is given too")
      ->check(CLI::Range(1, 1000000))
      ->each([&o](const std::string&) { o.iters_given = true; });
  app.add_option("-w,--warmup-iters", o.warmup_iters, "Untimed operations before sampling")
      ->check(CLI::Range(0, 1000000));
  app.add_option("-c,--check", o.check, "Verify results against exact expected values (0 or 1)")
      ->check(CLI::IsMember({0, 1}));
  app.add_option("-d,--datatype", o.datatypes, "Element types: one, a comma-separated list, or 'all'")
      ->delimiter(',');
  app.add_option("-o,--op", o.ops, "Reduction operators: sum, prod, min, max, avg, band, bor, bxor, a list or 'all'")
      ->delimiter(',');
  app.add_option("-r,--root", o.root, "Root rank (within the group) of broadcast, reduce, gather and scatter")
      ->check(CLI::NonNegativeNumber);
  app.add_option("-a,--average", o.average, "Time shown per case across ranks: rank0, avg, min or max (or 0..3)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, std::string>{{"0", "rank0"}, {"1", "avg"}, {"2", "min"}, {"3", "max"},
                                             {"rank0", "rank0"}, {"avg", "avg"}, {"min", "min"}, {"max", "max"}},
          CLI::ignore_case));
  app.add_option("-T,--timeout", o.timeout_s, "Seconds any single step (a sample, a check, a barrier) may take")
      ->check(CLI::PositiveNumber);
  app.add_option("--group-size", o.group_size,
                 "Run in consecutive groups of this many ranks at once (0: one group of all ranks)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--placement", o.placement, "Buffers: out-of-place, in-place or both")
      ->check(CLI::IsMember({"out-of-place", "in-place", "both"}));
  app.add_option("--json", o.json, "Write a JSON report here (rewritten after every size)");
  app.add_option("--csv", o.csv, "Write a CSV report here (rewritten after every size)");
  app.add_option("--max-noise", o.max_noise,
                 "Sample until the median's 95% confidence interval is within this many % (0: -n samples)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--min-samples", o.min_samples,
                 "Samples taken before the noise is judged or the time budget cuts a case short")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--max-time", o.max_time_s,
                 "Seconds of sampling per case at most (default 0.05; with --max-noise 10; 0: no budget)")
      ->check(CLI::NonNegativeNumber)
      ->each([&o](const std::string&) { o.max_time_given = true; });
  app.add_flag("--show-faults", o.show_faults,
               "Show page faults and context switches per operation in the table (the reports always have them)");
  app.add_flag("--malloc-reuse", o.malloc_reuse,
               "Keep freed memory mapped (mallopt M_MMAP_MAX=0, M_TRIM_THRESHOLD=2G before MPI starts), so a "
               "library's per-call temporary buffers are not faulted in afresh on every call");
  app.add_option("--backend", o.backend, "auto (nccl when a GPU is visible and built in, else mpi), mpi or nccl");
  app.add_option("-g,--ngpus", o.gpus, "GPUs driven by each process (nccl)")->check(CLI::Range(1, 64));
  app.add_option("-m,--agg-iters", o.agg_iters, "Operations aggregated per NCCL group call (nccl)")
      ->check(CLI::Range(1, 100000));
  app.add_option("-G,--cudagraph", o.graph_launches,
                 "Capture the timed loop in a CUDA graph and replay it this many times (nccl; 0: off)")
      ->check(CLI::Range(0, 100000));
  app.add_option("-z,--blocking", o.blocking, "Blocking NCCL initialisation and calls (nccl; 0 or 1)")
      ->check(CLI::IsMember({0, 1}));
  app.add_option("-R,--register", o.register_buffers, "Register buffers with NCCL (nccl; 0 or 1)")
      ->check(CLI::IsMember({0, 1}));
}

SweepPlan make_plan(Collective collective, const CollectiveOptions& o) {
  SweepPlan plan;
  plan.collective = collective;
  if (o.stepfactor_given && o.stepbytes_given) {
    throw usage_error("-f/--stepfactor and -i/--stepbytes both given; use one: a factor (-f 2) or a step (-i 1M)");
  }
  const std::uint64_t step = o.stepbytes_given ? parse_size(o.stepbytes) : 0;
  if (o.stepbytes_given && step == 0) {
    throw usage_error("-i/--stepbytes must be a positive number of bytes, e.g. -i 1M");
  }
  if (!o.stepbytes_given && !(o.stepfactor > 1.0)) {
    throw usage_error(fmt::format("-f/--stepfactor {:g} must be greater than 1; for additive steps use -i/--stepbytes",
                                  o.stepfactor));
  }
  plan.sizes = size_sweep(parse_size(o.minbytes), parse_size(o.maxbytes), o.stepbytes_given ? 1.0 : o.stepfactor,
                          step);

  plan.dtypes = parse_list<DType>(o.datatypes, parse_dtype, all_dtypes, "datatype", "-d/--datatype");
  if (is_reduction(collective)) {
    plan.ops = parse_list<ReduceOp>(o.ops, parse_reduce_op, all_reduce_ops, "reduction operator", "-o/--op");
    // An operator asked for by name must be defined for every type asked for by name; 'all' keeps what fits.
    if (!asked_for_all(o.ops) && !asked_for_all(o.datatypes)) {
      for (ReduceOp op : plan.ops) {
        for (DType t : plan.dtypes) {
          if (!defined_for(op, t)) {
            throw usage_error(fmt::format("operator '{}' is not defined for datatype '{}' (bitwise operators need an "
                                          "integer type); pick an integer -d/--datatype or another -o/--op",
                                          name(op), name(t)));
          }
        }
      }
    }
  } else {
    plan.ops = {ReduceOp::sum};
  }

  if (o.placement == "out-of-place") plan.placements = {Placement::out_of_place};
  if (o.placement == "in-place") plan.placements = {Placement::in_place};
  plan.root = o.root;
  plan.group_size = o.group_size;
  plan.warmup_iters = o.warmup_iters;
  plan.stopping.samples = static_cast<std::size_t>(o.iters);
  plan.stopping.max_noise = o.max_noise;
  plan.stopping.min_samples = static_cast<std::size_t>(o.min_samples);
  // The time budget: what was given; else 10 s with a noise target, none with an explicit -n, and 0.05 s per case
  // by default (-n 20 samples, fewer when they would outlast it).
  if (o.max_time_given) {
    plan.stopping.max_time_s = o.max_time_s;
  } else if (o.max_noise > 0) {
    plan.stopping.max_time_s = 10.0;
  } else {
    plan.stopping.max_time_s = o.iters_given ? 0.0 : o.max_time_s;
  }
  if (o.max_noise > 0 && plan.stopping.max_time_s <= 0) {
    throw usage_error("--max-noise needs a time budget: give --max-time a positive number of seconds");
  }
  plan.show_faults = o.show_faults;
  plan.malloc_reuse = o.malloc_reuse;
  plan.check = o.check != 0;
  plan.average = o.average == "rank0" ? RankAverage::rank0
                 : o.average == "min" ? RankAverage::min
                 : o.average == "max" ? RankAverage::max
                                      : RankAverage::avg;
  plan.timeout_s = o.timeout_s;
  plan.json_path = o.json;
  plan.csv_path = o.csv;
  plan.backend = o.backend;
  plan.backend_options.gpus_per_process = o.gpus;
  plan.backend_options.agg_iters = o.agg_iters;
  plan.backend_options.graph_launches = o.graph_launches;
  plan.backend_options.blocking = o.blocking != 0;
  plan.backend_options.register_buffers = o.register_buffers != 0;
  plan.backend_options.timeout_s = o.timeout_s;
  return plan;
}

}  // namespace distbench::cli
