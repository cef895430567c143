#include "cli/collective_options.hpp"

#include "cli/option_groups.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/measure/sizes.hpp"

#include <CLI/CLI.hpp>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <map>

namespace distbench::cli {

using collective::Fusion;
using collective::SweepPlan;
using collective::Timing;

namespace {

bool asks(const CollectiveOptions& o, std::string_view method) {
  return std::find(o.timings.begin(), o.timings.end(), method) != o.timings.end();
}

// --timing as the plan's methods: one, or a list without repeats in which 'auto' has no place.
std::vector<Timing> timings(const CollectiveOptions& o) {
  if (o.timings.empty()) return {Timing::automatic};
  std::vector<Timing> out;
  for (const std::string& t : o.timings) {
    if (o.timings.size() > 1 && t == "auto") {
      throw usage_error(fmt::format("--timing {}: auto stands alone; name the methods, e.g. --timing sampled,osu",
                                    fmt::join(o.timings, ",")));
    }
    const Timing m = t == "sampled"      ? Timing::sampled
                     : t == "nccl-tests" ? Timing::nccl_tests
                     : t == "osu"        ? Timing::osu
                     : t == "imb"        ? Timing::imb
                                         : Timing::automatic;
    if (std::find(out.begin(), out.end(), m) != out.end()) {
      throw usage_error(fmt::format("--timing {}: {} is named twice; name each method once",
                                    fmt::join(o.timings, ","), t));
    }
    out.push_back(m);
  }
  return out;
}

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
      throw usage_error(fmt::format("unknown {} '{}'; {} takes one of {}, a comma-separated list, or 'all'", what, text,
                                    flag, fmt::join(names, ", ")));
    }
    if (std::find(out.begin(), out.end(), *value) == out.end()) out.push_back(*value);
  }
  return out;
}

bool asked_for_all(const std::vector<std::string>& texts) {
  return std::find(texts.begin(), texts.end(), "all") != texts.end();
}

// Options the user gave that mean nothing for this collective: each one's warning.
std::vector<Warning> ignored_options(Collective collective, const CollectiveOptions& o) {
  std::vector<Warning> out;
  if (o.ops_given && !is_reduction(collective)) {
    out.push_back({"option_ignored",
                   fmt::format("-o/--op {} ignored: {} does not reduce", fmt::join(o.ops, ","), name(collective))});
  }
  if (o.root_given && !is_rooted(collective)) {
    out.push_back({"option_ignored", fmt::format("-r/--root {} ignored: {} has no root (only broadcast, reduce, "
                                                 "gather and scatter do)",
                                                 o.root, name(collective))});
  }
  if (o.parallel_init_given) {
    out.push_back({"option_ignored", "-p/--parallel_init ignored: distbench runs one thread per process, so there "
                                     "are no threads' communicators to initialise in parallel"});
  }
  for (const char* peer : {"osu", "imb"}) {
    if (asks(o, peer) && (o.sampling.max_noise > 0 || o.sampling.max_time_given)) {
      out.push_back({"option_ignored", fmt::format("--max-noise and --max-time ignored by --timing {}: it times the "
                                                   "peer's own count of calls (-n replaces it)",
                                                   peer)});
    }
  }
  if (o.fuse_given && o.tensors <= 1) {
    out.push_back({"option_ignored",
                   collective == Collective::allreduce
                       ? fmt::format("--fuse {} ignored: it applies to a list of tensors; add --tensors N (N > 1) to "
                                     "reduce one",
                                     o.fuse)
                       : fmt::format("--fuse {} ignored: {} has no list of tensors (only allreduce has --tensors)",
                                     o.fuse, name(collective))});
  }
  return out;
}

}  // namespace

void add_collective_options(CLI::App& app, CollectiveOptions& o, std::optional<Collective> collective) {
  using namespace groups;
  // What this collective's --help shows: every option when it is not named (a test's parser).
  const bool reduces = !collective || is_reduction(*collective);
  const bool rooted = !collective || is_rooted(*collective);
  const bool lists = !collective || *collective == Collective::allreduce;
  add_sampling_options(app, o.sampling);
  app.get_option("--iters")
      ->description("Samples per case; nccl-tests timing: calls per block");
  app.get_option("--warmup-iters")
      ->default_str(fmt::format("{}; nccl-tests 1; osu, imb theirs", SamplingOptions{}.warmup_iters));
  add_common_options(app, o.common);
  add_sweep_loop_options(app, o.common);
  add_per_rank_options(app, o.per_rank);

  app.add_option("-b,--minbytes", o.minbytes, "Smallest size S in bytes; 1K = 1024, 1.5M, 1MiB")
      ->option_text("SIZE")
      ->group(kSweep);
  app.add_option("-e,--maxbytes", o.maxbytes, "Largest size S in bytes")->option_text("SIZE")->group(kSweep);
  app.add_option("-f,--stepfactor", o.stepfactor, "Multiply the size by X (> 1) between steps")
      ->option_text("X")
      ->group(kSweep)
      ->each([&o](const std::string&) { o.stepfactor_given = true; });
  app.add_option("-i,--stepbytes", o.stepbytes, "Add SIZE bytes between steps instead of multiplying")
      ->option_text("SIZE")
      ->group(kSweep)
      ->each([&o](const std::string&) { o.stepbytes_given = true; });
  app.add_option("-d,--datatype", o.datatypes, "Element types, a list or all ('distbench list')")
      ->option_text("TYPES")
      ->group(kSweep)
      ->delimiter(',');
  // Accepted where they do not apply (nccl-tests' scripts pass them to every *_perf) and said to be ignored.
  app.add_option("-o,--op", o.ops, "Reduction operators, a list or all ('distbench list')")
      ->option_text("OPS")
      ->group(reduces ? kSweep : kHidden)
      ->delimiter(',')
      ->each([&o](const std::string&) { o.ops_given = true; });
  app.add_option("-r,--root", o.root, "Root rank in the group; -1: every rank in turn")
      ->option_text("RANK")
      ->group(rooted ? kSweep : kHidden)
      ->check(at_least(-1))
      ->each([&o](const std::string&) { o.root_given = true; });
  app.add_option("--placement", o.placement, "Buffers: out-of-place, in-place or both")
      ->option_text("WHERE")
      ->group(kSweep)
      ->check(one_of({"out-of-place", "in-place", "both"}));
  app.add_option("--group-size", o.group_size, "Run in groups of N consecutive ranks; 0: one group")
      ->option_text("N")
      ->group(kSweep)
      ->check(at_least(0));
  // Elsewhere --tensors N > 1 is refused with the reason, and --fuse said to be ignored.
  app.add_option("--tensors", o.tensors, "Reduce a list of N tensors of S/N bytes each, in place")
      ->option_text("N")
      ->group(lists ? kSweep : kHidden)
      ->check(at_least(1));
  app.add_option("--fuse", o.fuse, "With --tensors: on (packed), off (one by one) or both")
      ->option_text("MODE")
      ->group(lists ? kSweep : kHidden)
      ->check(one_of({"on", "off", "both"}))
      ->each([&o](const std::string&) { o.fuse_given = true; });
  app.add_option("-N,--run-cycles", o.cycles, "Run the whole sweep N times, each cycle its own rows")
      ->option_text("N")
      ->group(kSweep)
      ->check(in_range(0, 1000000));

  app.add_option("--timing", o.timings,
                 "sampled, nccl-tests, osu, imb, or a list (each case timed each way, side by side); auto: "
                 "nccl-tests on nccl, else sampled")
      ->option_text("HOW")
      ->group(kSampling)
      ->delimiter(',')
      ->check(one_of({"auto", "sampled", "nccl-tests", "osu", "imb"}));
  app.add_option("--blocks", o.blocks, "nccl-tests timing: exactly N blocks per case (1: all_reduce_perf's)")
      ->option_text("N")
      ->default_str("")  // none: the blocks follow the sampling rule
      ->group(kSampling)
      ->check(in_range(1, 1000000));
  app.add_option("-a,--average", o.average, "Time across ranks: rank0, avg, min or max (or 0..3)")
      ->option_text("HOW")
      ->group(kSampling)
      ->transform(one_of({"rank0", "avg", "min", "max"}, {{"0", "rank0"}, {"1", "avg"}, {"2", "min"}, {"3", "max"}}));
  app.add_option("-C,--report-cputime", o.cpu_time, "1: time on the host clock (nccl: time to enqueue)")
      ->option_text("0|1")
      ->group(kSampling)
      ->check(one_of({"0", "1"}));

  app.add_option("-c,--check", o.check, "Verify results N times per case; 0: no check")
      ->option_text("N")
      ->group(kVerification)
      ->check(in_range(0, 1000000));
  app.add_option("--min-busbw", o.min_busbw, "Exit 6 when the average busbw is below this; 0: none")
      ->option_text("GB/S")
      ->group(kVerification)
      ->check(non_negative_number("GB/s"));
  app.add_option("--min-algbw", o.min_algbw, "Exit 6 when the average algbw is below this; 0: none")
      ->option_text("GB/S")
      ->group(kVerification)
      ->check(non_negative_number("GB/s"));
  app.add_option("--min-busbw-at", o.min_busbw_at, "Judge the floors on the lowest result at sizes >= SIZE instead")
      ->option_text("SIZE")
      ->group(kVerification);

  app.add_option("--columns", o.columns, "Add columns: median, p99, noise, samples, device, a list or all")
      ->option_text("LIST")
      ->group(kReports)
      ->delimiter(',');
  app.add_option("-S,--report-timestamps", o.timestamps, "1: each row's start time (UTC) in the table and reports")
      ->option_text("0|1")
      ->group(kReports)
      ->check(one_of({"0", "1"}));

  // nccl-tests' threads: accepted so that its command lines run, never shown.
  app.add_option("-t,--nthreads", o.nthreads, "nccl-tests' threads per process: 1 only (one thread per process here)")
      ->group(kHidden)
      ->check(CLI::Validator(
          [](const std::string& v) {
            return v == "1" ? std::string()
                            : fmt::format("{} threads per process: distbench runs one; start {} times the processes "
                                          "instead (mpirun -np), with -g for several GPUs each",
                                          v, v);
          },
          "1", "one thread"));
  app.add_option("-p,--parallel_init", o.parallel_init,
                 "nccl-tests' parallel initialisation of its threads (0 or 1): nothing to do here, said so once")
      ->group(kHidden)
      ->check(one_of({"0", "1"}))
      ->each([&o](const std::string&) { o.parallel_init_given = true; });
}

SweepPlan make_plan(Collective collective, const CollectiveOptions& o) {
  SweepPlan plan;
  plan.collective = collective;
  if (o.stepfactor_given && o.stepbytes_given) {
    throw usage_error("-f/--stepfactor and -i/--stepbytes both given; use one: a factor (-f 2) or a step (-i 1M)");
  }
  const std::uint64_t step = o.stepbytes_given ? parse_size_option("-i/--stepbytes", o.stepbytes) : 0;
  if (o.stepbytes_given && step == 0) {
    throw usage_error("-i/--stepbytes must be a positive number of bytes, e.g. -i 1M");
  }
  if (!o.stepbytes_given && !(o.stepfactor > 1.0)) {
    throw usage_error(fmt::format("-f/--stepfactor {:g} must be greater than 1; for additive steps use -i/--stepbytes",
                                  o.stepfactor));
  }
  plan.sizes = size_sweep(parse_size_option("-b/--minbytes", o.minbytes),
                           parse_size_option("-e/--maxbytes", o.maxbytes), o.stepbytes_given ? 1.0 : o.stepfactor, step);

  plan.dtypes = parse_list<DType>(o.datatypes, parse_dtype, all_dtypes, "datatype", "-d/--datatype");
  if (is_reduction(collective)) {
    plan.ops = parse_list<ReduceOp>(o.ops, parse_reduce_op, all_reduce_ops, "reduction operator", "-o/--op");
    // An operator asked for by name must be defined for every type asked for by name; 'all' keeps what fits.
    if (!asked_for_all(o.ops) && !asked_for_all(o.datatypes)) {
      for (ReduceOp op : plan.ops) {
        for (DType t : plan.dtypes) {
          if (!defined_for(op, t)) {
            throw usage_error(
                fmt::format("operator '{}' is not defined for datatype '{}' (bitwise operators need an "
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
  if (o.tensors > 1) {
    if (collective != Collective::allreduce) {
      throw usage_error(fmt::format("--tensors {} reduces a list of tensors: it is an allreduce option, not {}'s",
                                    o.tensors, name(collective)));
    }
    if (o.placement == "out-of-place") {
      throw usage_error("--tensors reduces each tensor in place (as gradients are); drop --placement out-of-place");
    }
    // Each tensor holds an element at least: a list longer than the largest size holds elements measures nothing.
    DType smallest = plan.dtypes.front();
    for (DType t : plan.dtypes) smallest = size_of(t) < size_of(smallest) ? t : smallest;
    const std::uint64_t most = plan.sizes.back() / size_of(smallest);
    if (static_cast<std::uint64_t>(o.tensors) > most) {
      throw usage_error(fmt::format("--tensors {} asks for more tensors than the largest size holds elements ({} of "
                                    "{} in -e/--maxbytes {}): give --tensors {} or fewer, or -e {} or more",
                                    o.tensors, most, name(smallest), format_bytes(plan.sizes.back()),
                                    std::max<std::uint64_t>(most, 1),
                                    format_bytes(static_cast<std::uint64_t>(o.tensors) * size_of(smallest))));
    }
    plan.tensors = o.tensors;
    plan.placements = {Placement::in_place};
    if (o.fuse == "on") plan.fusions = {Fusion::fused};
    if (o.fuse == "off") plan.fusions = {Fusion::per_tensor};
  }
  plan.root = o.root;
  plan.ignored_options = ignored_options(collective, o);
  plan.per_rank = o.per_rank;
  plan.group_size = o.group_size;
  plan.warmup_iters = o.sampling.warmup_iters;
  plan.timings = timings(o);
  if (plan.timings == std::vector<Timing>{Timing::nccl_tests} && !o.sampling.warmup_given) {
    plan.warmup_iters = 1;  // all_reduce_perf's -w default
  }
  plan.stopping = stopping_rule(o.sampling);
  if (o.sampling.iters_given) plan.iters_given = o.sampling.iters;  // --timing osu|imb: in place of the peer's counts
  if (o.sampling.warmup_given) plan.warmup_given = o.sampling.warmup_iters;
  {  // nccl-tests' timing reads -n as operations per timed block; the blocks per case follow the default rule
    SamplingOptions blocks = o.sampling;
    blocks.iters = SamplingOptions{}.iters;
    blocks.iters_given = false;
    plan.block_stopping = stopping_rule(blocks);
    if (o.sampling.iters_given) plan.block_iters = o.sampling.iters;
  }
  if (o.blocks > 0) {  // exactly that many blocks: 1 is all_reduce_perf's own (one timed block after -w)
    if (!asks(o, "nccl-tests") && !asks(o, "auto") && !asks(o, "sampled")) {
      throw usage_error(fmt::format("--blocks counts nccl-tests' timed blocks; --timing {} times one call at a time: "
                                    "drop one of them",
                                    fmt::join(o.timings, ",")));
    }
    if (!asks(o, "nccl-tests") && !asks(o, "auto")) {
      throw usage_error("--blocks counts nccl-tests' timed blocks; --timing sampled takes -n samples instead: drop "
                        "one of them");
    }
    plan.block_stopping = StoppingRule{.samples = static_cast<std::size_t>(o.blocks),
                                       .max_noise = 0.0,
                                       .min_samples = static_cast<std::size_t>(o.blocks),
                                       .max_time_s = 0.0};
    plan.blocks_given = true;
  }
  if (plan.tensors > 1 && plan.timings != std::vector<Timing>{Timing::sampled} &&
      plan.timings != std::vector<Timing>{Timing::automatic}) {
    throw usage_error(fmt::format("--timing {} times one buffer per operation, not a --tensors list; drop --tensors or "
                                  "use --timing sampled",
                                  fmt::join(o.timings, ",")));
  }
  if (plan.tensors > 1) plan.timings = {Timing::sampled};
  plan.floor.min_busbw = o.min_busbw;
  plan.floor.min_algbw = o.min_algbw;
  if (!o.min_busbw_at.empty()) {
    plan.floor.at_bytes = parse_size_option("--min-busbw-at", o.min_busbw_at);
    if (!plan.floor.active()) {
      throw usage_error("--min-busbw-at needs a floor to judge: add --min-busbw GBPS or --min-algbw GBPS");
    }
  }
  for (const std::string& c : o.columns) {
    static const std::vector<std::string> kColumns = {"median", "p99", "noise", "samples", "device"};
    if (c == "all") {
      plan.columns = kColumns;
      break;
    }
    if (std::find(kColumns.begin(), kColumns.end(), c) == kColumns.end()) {
      throw usage_error(fmt::format("--columns {}: no such column; pick from median, p99, noise, samples, device, or 'all'", c));
    }
    if (std::find(plan.columns.begin(), plan.columns.end(), c) == plan.columns.end()) plan.columns.push_back(c);
  }
  plan.show_faults = o.common.show_faults;
  plan.malloc_reuse = o.common.malloc_reuse;
  plan.huge_pages = o.common.huge_pages == "on";
  plan.check_iters = o.check;
  if (o.cycles == 0) {
    throw usage_error(
        "-N/--run-cycles 0 (nccl-tests' run forever) is not supported: a distbench run ends on its own so that its "
        "reports are complete; give a count for a long run, e.g. -N 1000");
  }
  plan.cycles = o.cycles;
  plan.timestamps = o.timestamps != 0;
  plan.cpu_time = o.cpu_time != 0;
  plan.average = o.average == "rank0" ? RankAverage::rank0
                 : o.average == "min" ? RankAverage::min
                 : o.average == "max" ? RankAverage::max
                                      : RankAverage::avg;
  plan.timeout_s = o.common.timeout_s;
  plan.backend = o.common.backend;
  plan.backend_options = backend_options(collective_common(o));
  return plan;
}

CommonOptions collective_common(const CollectiveOptions& o) {
  CommonOptions c = o.common;
  if (c.alloc == "auto" && (asks(o, "auto") || asks(o, "nccl-tests")) && o.tensors <= 1) c.alloc = "ncclMemAlloc";
  return c;
}

}  // namespace distbench::cli
