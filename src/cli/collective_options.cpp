#include "cli/collective_options.hpp"

#include "benchmarks/collective/plan_rules.hpp"
#include "cli/option_groups.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/measure/sizes.hpp"

#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

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

// --tensors and --fuse (allreduce's): elsewhere --tensors N > 1 is refused with the reason, and --fuse said to be
// ignored.
void add_list_options(CLI::App& app, CollectiveOptions& o, bool lists) {
  using namespace groups;
  app.add_option("--tensors", o.tensors, "Reduce a list of N tensors of S/N bytes each, in place")
      ->option_text("N")
      ->group(lists ? kSweep : kHidden)
      ->check(at_least(1));
  app.add_option("--fuse", o.fuse, "With --tensors: on (packed), off (one by one) or both")
      ->option_text("MODE")
      ->group(lists ? kSweep : kHidden)
      ->check(one_of({"on", "off", "both"}))
      ->each([&o](const std::string&) { o.fuse_given = true; });
}

// The sweep's own: sizes, types, operators, placements, groups, lists, cycles. -o, -r, --tensors and --fuse are
// accepted where they do not apply (nccl-tests' scripts pass them to every *_perf), hidden there, and said to be
// ignored or refused.
void add_sweep_options(CLI::App& app, CollectiveOptions& o, bool reduces, bool rooted, bool lists) {
  using namespace groups;
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
  add_list_options(app, o, lists);
  app.add_option("-N,--run-cycles", o.cycles, "Run the whole sweep N times, each cycle its own rows")
      ->option_text("N")
      ->group(kSweep)
      ->check(in_range(0, 1000000));
}

// The timing methods and what they time: --timing, --blocks, -a, -C (after the sampling group's own).
void add_timing_options(CLI::App& app, CollectiveOptions& o) {
  using namespace groups;
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
}

// -c and the bandwidth floors.
void add_verification_options(CLI::App& app, CollectiveOptions& o) {
  using namespace groups;
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
}

// The table's extra columns and -S.
void add_table_options(CLI::App& app, CollectiveOptions& o) {
  using namespace groups;
  app.add_option("--columns", o.columns, "Add columns: median, mean, p99, noise, samples, device, a list or all")
      ->option_text("LIST")
      ->group(kReports)
      ->delimiter(',');
  app.add_option("-S,--report-timestamps", o.timestamps, "1: each row's start time (UTC) in the table and reports")
      ->option_text("0|1")
      ->group(kReports)
      ->check(one_of({"0", "1"}));
  app.add_option("-I,--per-iter-timing", o.per_iter_timing, "1: each case's per-sample statistics in -J's JSON")
      ->option_text("0|1")
      ->group(kReports)
      ->check(one_of({"0", "1"}));
  app.add_option("-K,--per-iter-skip", o.per_iter_skip, "-I's statistics leave out the first N samples")
      ->option_text("N")
      ->group(kReports)
      ->check(in_range(0, 1000000));
}

// nccl-tests' threads: accepted so that its command lines run, never shown.
void add_nccl_tests_thread_options(CLI::App& app, CollectiveOptions& o) {
  using namespace groups;
  app.add_option("-t,--nthreads", o.nthreads, "nccl-tests' threads per process: 1 only (one thread per process here)")
      ->group(kHidden)
      ->check(CLI::Validator(
          [](const std::string& v) {
            return v == "1" ? std::string()
                            : fmt::format(
                                  "{} threads per process: distbench runs one; start {} times the processes "
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

// -b, -e, -f, -i as the plan's rules take them.
collective::SizeSpec size_spec(const CollectiveOptions& o) {
  collective::SizeSpec spec{o.minbytes, o.maxbytes, o.stepfactor, o.stepfactor_given, std::nullopt};
  if (o.stepbytes_given) spec.step_text = o.stepbytes;
  return spec;
}

// -d and -o: the types and operators, each operator asked for by name defined for each type asked for by name.
void set_types(SweepPlan& plan, const CollectiveOptions& o) {
  plan.dtypes = parse_list<DType>(o.datatypes, parse_dtype, all_dtypes, "datatype", "-d/--datatype");
  if (!is_reduction(plan.collective)) {
    plan.ops = {ReduceOp::sum};
    return;
  }
  plan.ops = parse_list<ReduceOp>(o.ops, parse_reduce_op, all_reduce_ops, "reduction operator", "-o/--op");
  if (!asked_for_all(o.ops) && !asked_for_all(o.datatypes)) collective::check_ops_defined(plan.ops, plan.dtypes);
}

// --placement, and --tensors with --fuse.
void set_placements(SweepPlan& plan, const CollectiveOptions& o) {
  if (o.placement == "out-of-place") plan.placements = {Placement::out_of_place};
  if (o.placement == "in-place") plan.placements = {Placement::in_place};
  if (o.tensors <= 1) return;
  std::vector<Fusion> fusions = plan.fusions;
  if (o.fuse == "on") fusions = {Fusion::fused};
  if (o.fuse == "off") fusions = {Fusion::per_tensor};
  collective::set_tensor_list(plan, o.tensors, std::move(fusions));
}

// The options given that mean nothing for this sweep, as the plan's rules judge them.
collective::GivenOptions given_options(const CollectiveOptions& o) {
  collective::GivenOptions given;
  if (o.ops_given) given.ops = fmt::format("{}", fmt::join(o.ops, ","));
  if (o.root_given) given.root = o.root;
  given.parallel_init = o.parallel_init_given;
  given.noise_target = o.sampling.max_noise > 0 || o.sampling.max_time_given;
  if (o.fuse_given) given.fuse = o.fuse;
  return given;
}

// nccl-tests' timing reads -n as operations per timed block; the blocks per case follow the default rule, or
// --blocks exactly (1 is all_reduce_perf's own: one timed block after -w).
void set_blocks(SweepPlan& plan, const CollectiveOptions& o) {
  SamplingOptions blocks = o.sampling;
  blocks.iters = SamplingOptions{}.iters;
  blocks.iters_given = false;
  plan.block_stopping = stopping_rule(blocks);
  if (o.sampling.iters_given) plan.block_iters = o.sampling.iters;
  if (o.blocks <= 0) return;
  collective::check_blocks(plan.timings, o.timings);
  plan.block_stopping = collective::exact_blocks(o.blocks);
  plan.blocks_given = true;
}

// --timing and the sampling options each method reads its own way.
void set_timing(SweepPlan& plan, const CollectiveOptions& o) {
  plan.timings = collective::parse_timings(o.timings);
  plan.ignored_options = collective::ignored_options(plan, given_options(o));
  plan.warmup_iters = o.sampling.warmup_given ? o.sampling.warmup_iters
                                              : collective::default_warmup(plan.timings, o.sampling.warmup_iters);
  plan.stopping = stopping_rule(o.sampling);
  if (o.sampling.iters_given) plan.iters_given = o.sampling.iters;  // --timing osu|imb: in place of the peer's counts
  if (o.sampling.warmup_given) plan.warmup_given = o.sampling.warmup_iters;
  set_blocks(plan, o);
  collective::check_list_timing(plan, o.timings);
}

// -I and -K: statistics that only nccl-tests' JSON (-J/--output-file) holds; without it they are said to be ignored.
void set_per_iteration(SweepPlan& plan, const CollectiveOptions& o) {
  plan.per_iter_timing = o.per_iter_timing != 0;
  plan.per_iter_skip = o.per_iter_skip;
  const bool nccl_json = std::any_of(o.common.reports.begin(), o.common.reports.end(),
                                     [](const ReportTarget& t) { return t.format->name == "nccl-tests-json"; });
  if (plan.per_iter_timing && !nccl_json) {
    plan.ignored_options.push_back({"option_ignored",
                                    "-I/--per-iter-timing 1 ignored: its statistics go in -J's "
                                    "nccl-tests JSON, not asked for (--json keeps every sample)"});
  } else if (o.per_iter_skip > 0 && !plan.per_iter_timing) {
    plan.ignored_options.push_back(
        {"option_ignored",
         fmt::format("-K/--per-iter-skip {} ignored: it trims -I's statistics; -I is off", o.per_iter_skip)});
  }
}

// The floors, -c, the table's columns, and the reports' and buffers' options the plan keeps.
void set_verification_and_table(SweepPlan& plan, const CollectiveOptions& o) {
  plan.floor.min_busbw = o.min_busbw;
  plan.floor.min_algbw = o.min_algbw;
  if (!o.min_busbw_at.empty()) {
    plan.floor.at_bytes = parse_size_option("--min-busbw-at", o.min_busbw_at);
    collective::check_floor_at(plan.floor);
  }
  plan.columns = collective::table_columns(o.columns);
  plan.show_faults = o.common.show_faults;
  plan.malloc_reuse = o.common.malloc_reuse;
  plan.huge_pages = o.common.huge_pages == "on";
  plan.check_iters = o.check;
  set_per_iteration(plan, o);
}

// -N, -S, -C, -a and the run's own: timeout, backend.
void set_run(SweepPlan& plan, const CollectiveOptions& o) {
  collective::check_cycles(o.cycles);
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
}

}  // namespace

void add_collective_options(CLI::App& app, CollectiveOptions& o, std::optional<Collective> collective) {
  // What this collective's --help shows: every option when it is not named (a test's parser).
  const bool reduces = !collective || is_reduction(*collective);
  const bool rooted = !collective || is_rooted(*collective);
  const bool lists = !collective || *collective == Collective::allreduce;
  add_sampling_options(app, o.sampling);
  app.get_option("--iters")->description("Samples per case; nccl-tests timing: calls per block");
  app.get_option("--warmup-iters")
      ->default_str(fmt::format("{}; nccl-tests 1; osu, imb theirs", SamplingOptions{}.warmup_iters));
  add_common_options(app, o.common, "collective");
  add_sweep_loop_options(app, o.common);
  add_per_rank_options(app, o.per_rank);
  add_sweep_options(app, o, reduces, rooted, lists);
  add_timing_options(app, o);
  add_verification_options(app, o);
  add_table_options(app, o);
  add_nccl_tests_thread_options(app, o);
}

// In the order of the plan's rules (benchmarks/collective/plan_rules.hpp): the first one broken is the one said.
SweepPlan make_plan(Collective collective, const CollectiveOptions& o) {
  SweepPlan plan;
  plan.collective = collective;
  plan.sizes = collective::sweep_sizes(size_spec(o));
  set_types(plan, o);
  set_placements(plan, o);
  plan.root = o.root;
  plan.per_rank = o.per_rank;
  plan.group_size = o.group_size;
  set_timing(plan, o);
  set_verification_and_table(plan, o);
  set_run(plan, o);
  return plan;
}

CommonOptions collective_common(const CollectiveOptions& o) {
  CommonOptions c = o.common;
  if (c.alloc == "auto" && (asks(o, "auto") || asks(o, "nccl-tests")) && o.tensors <= 1) c.alloc = "ncclMemAlloc";
  return c;
}

}  // namespace distbench::cli
