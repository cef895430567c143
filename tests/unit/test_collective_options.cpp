// From the command line to the plan, before MPI starts: defaults, the stopping rule each combination of -n,
// --max-time and --max-noise asks for, the common options reaching the plan, and bad input as usage errors.
#include "cli/collective_options.hpp"
#include "cli/nccl_tests_spellings.hpp"
#include "cli/runner.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace distbench::cli {
namespace {

using collective::kAllRoots;
using collective::SweepPlan;
using collective::Timing;

SweepPlan plan_for(Collective c, std::vector<std::string> args) {
  CLI::App app{"test"};
  CollectiveOptions options;
  add_collective_options(app, options);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes the arguments in reverse
  app.parse(reversed);
  return make_plan(c, options);
}

// The options are refused as bad input (exit code 2) with a message that names `fragment`.
void expect_usage_error(std::vector<std::string> args, const std::string& fragment) {
  try {
    plan_for(Collective::allreduce, std::move(args));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(CollectiveOptions, DefaultsAreTheDocumentedOnes) {
  const SweepPlan plan = plan_for(Collective::allreduce, {});
  EXPECT_EQ(plan.sizes.front(), 8u);
  EXPECT_EQ(plan.sizes.back(), 64u << 20);
  EXPECT_EQ(plan.sizes.size(), 24u);
  EXPECT_EQ(plan.placements.size(), 2u);
  EXPECT_EQ(plan.warmup_iters, 5);
  EXPECT_EQ(plan.stopping.samples, 20u);
  EXPECT_EQ(plan.stopping.min_samples, 10u);
  EXPECT_DOUBLE_EQ(plan.stopping.max_time_s, 0.05);  // the per-case budget
  EXPECT_FALSE(plan.stopping.noise_mode());
  EXPECT_DOUBLE_EQ(plan.timeout_s, 300.0);
  EXPECT_EQ(plan.backend, "auto");
  EXPECT_FALSE(plan.show_faults);
  EXPECT_FALSE(plan.malloc_reuse);
}

TEST(CollectiveOptions, NcclTestsCommandLinesParse) {
  // main respells nccl-tests' long names before parsing, alone or before '=', never after "--"
  const char* argv[] = {"distbench",        "allreduce", "--warmup_iters",  "3",  "--agg_iters=2", "--run_cycles", "2",
                        "--report_cputime", "1",         "--warmup_itersX", "--", "--warmup_iters"};
  EXPECT_EQ(with_distbench_spellings(12, argv),
            (std::vector<std::string>{"distbench", "allreduce", "--warmup-iters", "3", "--agg-iters=2", "--run-cycles",
                                      "2", "--report-cputime", "1", "--warmup_itersX", "--", "--warmup_iters"}));
  // -t 1 and -p are nccl-tests' thread options: one thread is what runs; -p is said to be ignored
  const SweepPlan plan = plan_for(Collective::allreduce, {"-t", "1", "-p", "1", "--warmup-iters", "3"});
  EXPECT_EQ(plan.warmup_iters, 3);
  ASSERT_EQ(plan.ignored_options.size(), 1u);
  EXPECT_NE(plan.ignored_options[0].message.find("-p/--parallel_init ignored"), std::string::npos);
  try {
    plan_for(Collective::allreduce, {"-t", "4"});
    FAIL() << "-t 4 was accepted";
  } catch (const CLI::ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("start 4 times the processes instead"), std::string::npos) << e.what();
  }
}

TEST(CommonOptions, AGivenOptionTheRunDoesNotUseIsWarnedAbout) {
  CLI::App app{"test"};
  SamplingOptions sampling;
  CommonOptions o;
  add_sampling_options(app, sampling);
  add_common_options(app, o);
  const std::vector<std::string> args = {"-n", "3", "--max-noise", "2", "-T", "5"};
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  app.parse(reversed);
  const auto warnings = given_but_unused(
      app, {{"--iters", "give --steps"}, {"--warmup-iters", "give --warmup"}, {"--max-noise", "no noise target"}});
  ASSERT_EQ(warnings.size(), 2u);  // -w was not given; -T is used
  EXPECT_EQ(warnings[0].code, "option_ignored");
  EXPECT_EQ(warnings[0].message, "-n/--iters 3 ignored: give --steps");
  EXPECT_EQ(warnings[1].message, "--max-noise 2 ignored: no noise target");
}

// A command declares only the groups its benchmark reads: the flags of the others are unknown to it (train: no
// Sampling group; tp: only its step counts; neither the sweep's loop).
TEST(CommonOptions, AGroupNotDeclaredIsUnknown) {
  const auto parse = [](bool step_counts, std::vector<std::string> args) {
    CLI::App app{"test"};
    SamplingOptions steps;
    CommonOptions o;
    if (step_counts) add_step_count_options(app, steps, "Timed steps", "Untimed steps first");
    add_common_options(app, o);
    app.parse(std::vector<std::string>(args.rbegin(), args.rend()));
    return steps;
  };
  for (const std::vector<std::string>& flag : std::vector<std::vector<std::string>>{{"-n", "5"},
                                                                                    {"-w", "1"},
                                                                                    {"--max-noise", "2"},
                                                                                    {"--min-samples", "3"},
                                                                                    {"--max-time", "1"},
                                                                                    {"--show-faults"},
                                                                                    {"-m", "2"},
                                                                                    {"-G", "1"}}) {
    EXPECT_THROW(parse(false, flag), CLI::ExtrasError) << flag[0];
    if (flag[0] != "-n" && flag[0] != "-w") {
      EXPECT_THROW(parse(true, flag), CLI::ExtrasError) << flag[0];
    }
  }
  const SamplingOptions steps = parse(true, {"-n", "5", "-w", "0", "-T", "9", "--json", "r.json"});
  EXPECT_EQ(steps.iters, 5);
  EXPECT_EQ(steps.warmup_iters, 0);
  EXPECT_TRUE(steps.iters_given);
}

TEST(CollectiveOptions, AnExplicitIterationCountTurnsTheBudgetOff) {
  EXPECT_DOUBLE_EQ(plan_for(Collective::allreduce, {"-n", "7"}).stopping.max_time_s, 0.0);
  const SweepPlan both = plan_for(Collective::allreduce, {"-n", "7", "--max-time", "2"});
  EXPECT_EQ(both.stopping.samples, 7u);
  EXPECT_DOUBLE_EQ(both.stopping.max_time_s, 2.0);
}

TEST(CollectiveOptions, NcclTestsTimingReadsMinusNAsOperationsPerBlock) {
  const SweepPlan plain = plan_for(Collective::allreduce, {});
  EXPECT_EQ(plain.timings, std::vector<Timing>{Timing::automatic});
  EXPECT_EQ(plain.block_iters, 20);  // nccl-tests' default -n
  // on a GPU: what a user of nccl-tests expects; over MPI: as IMB and OSU time
  EXPECT_EQ(resolved_timings(plain, true), std::vector<Timing>{Timing::nccl_tests});
  EXPECT_EQ(resolved_timings(plain, false), std::vector<Timing>{Timing::sampled});
  // -n given: a block of 7 operations; the blocks per case keep the default rule and its budget.
  const SweepPlan seven = plan_for(Collective::allreduce, {"--timing", "nccl-tests", "-n", "7"});
  EXPECT_EQ(seven.timings, std::vector<Timing>{Timing::nccl_tests});
  EXPECT_EQ(seven.block_iters, 7);
  EXPECT_EQ(seven.block_stopping.samples, 20u);
  EXPECT_DOUBLE_EQ(seven.block_stopping.max_time_s, 0.05);
  EXPECT_EQ(seven.stopping.samples, 7u);  // the sampled method's reading is unchanged
  EXPECT_EQ(plan_for(Collective::allreduce, {"--timing", "sampled"}).timings, std::vector<Timing>{Timing::sampled});
  // A --tensors list is timed by samples; asking for nccl-tests' method with one is a usage error.
  EXPECT_EQ(plan_for(Collective::allreduce, {"--tensors", "4"}).timings, std::vector<Timing>{Timing::sampled});
  expect_usage_error({"--tensors", "4", "--timing", "nccl-tests"}, "--timing sampled");
  expect_usage_error({"--tensors", "4", "--timing", "sampled,osu"}, "--timing sampled");
  EXPECT_THROW(plan_for(Collective::allreduce, {"--timing", "events"}), CLI::ValidationError);
}

// --timing a,b: each case timed each way, in the order named; a method named twice, or auto in a list, is refused.
TEST(CollectiveOptions, SeveralTimingMethodsInTheOrderNamed) {
  const SweepPlan both = plan_for(Collective::allreduce, {"--timing", "osu,sampled,imb"});
  EXPECT_EQ(both.timings, (std::vector<Timing>{Timing::osu, Timing::sampled, Timing::imb}));
  EXPECT_EQ(both.warmup_iters, 5);  // the sampled method's; the peers' methods take their own counts
  EXPECT_TRUE(times_by(both, Timing::imb, false));
  EXPECT_FALSE(times_by(both, Timing::nccl_tests, false));
  EXPECT_EQ(plan_for(Collective::allreduce, {"--timing", "sampled", "--timing", "osu"}).timings,
            (std::vector<Timing>{Timing::sampled, Timing::osu}));
  expect_usage_error({"--timing", "osu,osu"}, "named twice");
  expect_usage_error({"--timing", "auto,osu"}, "auto stands alone");
  EXPECT_THROW(plan_for(Collective::allreduce, {"--timing", "osu,events"}), CLI::ValidationError);
  expect_usage_error({"--timing", "sampled,osu", "--blocks", "2"}, "--blocks");
  EXPECT_TRUE(plan_for(Collective::allreduce, {"--timing", "osu,nccl-tests", "--blocks", "2"}).blocks_given);
  // nccl-tests' method among others allocates as all_reduce_perf does, as it does alone
  EXPECT_TRUE(plan_for(Collective::allreduce, {"--timing", "osu,nccl-tests"}).backend_options.nccl_mem_alloc);
  EXPECT_FALSE(plan_for(Collective::allreduce, {"--timing", "sampled,osu"}).backend_options.nccl_mem_alloc);
}

// all_reduce_perf times one block per case in buffers from ncclMemAlloc: --blocks 1 takes exactly one block, and
// nccl-tests' timing allocates as the peer does unless told otherwise.
TEST(CollectiveOptions, BlocksAndTheAllocatorFollowNcclTests) {
  const SweepPlan one = plan_for(Collective::allreduce, {"--timing", "nccl-tests", "--blocks", "1"});
  EXPECT_TRUE(one.blocks_given);
  EXPECT_EQ(one.warmup_iters, 1);  // all_reduce_perf's -w
  EXPECT_EQ(plan_for(Collective::allreduce, {"--timing", "nccl-tests", "-w", "3"}).warmup_iters, 3);
  EXPECT_EQ(plan_for(Collective::allreduce, {}).warmup_iters, 5);
  EXPECT_EQ(one.block_stopping.samples, 1u);
  EXPECT_EQ(one.block_stopping.min_samples, 1u);
  EXPECT_DOUBLE_EQ(one.block_stopping.max_time_s, 0.0);  // no budget cuts it, and none adds blocks
  EXPECT_FALSE(plan_for(Collective::allreduce, {}).blocks_given);
  expect_usage_error({"--timing", "sampled", "--blocks", "3"}, "--blocks");
  EXPECT_THROW(plan_for(Collective::allreduce, {"--blocks", "0"}), CLI::ValidationError);

  EXPECT_TRUE(plan_for(Collective::allreduce, {}).backend_options.nccl_mem_alloc);  // auto: nccl-tests' on a GPU
  EXPECT_TRUE(plan_for(Collective::allreduce, {"--timing", "nccl-tests"}).backend_options.nccl_mem_alloc);
  EXPECT_FALSE(plan_for(Collective::allreduce, {"--timing", "sampled"}).backend_options.nccl_mem_alloc);
  EXPECT_FALSE(plan_for(Collective::allreduce, {"--tensors", "4"}).backend_options.nccl_mem_alloc);
  EXPECT_FALSE(plan_for(Collective::allreduce, {"--alloc", "cudaMalloc"}).backend_options.nccl_mem_alloc);
  const SweepPlan asked = plan_for(Collective::allreduce, {"--timing", "sampled", "--alloc", "ncclMemAlloc"});
  EXPECT_TRUE(asked.backend_options.nccl_mem_alloc);
  EXPECT_TRUE(plan_for(Collective::allreduce, {"--timing", "sampled", "-R", "1"}).backend_options.nccl_mem_alloc);
  expect_usage_error({"-R", "1", "--alloc", "cudaMalloc"}, "ncclMemAlloc");
  EXPECT_THROW(plan_for(Collective::allreduce, {"--alloc", "malloc"}), CLI::ValidationError);
}

TEST(CollectiveOptions, ANoiseTargetGetsTenSecondsUnlessTold) {
  SweepPlan plan = plan_for(Collective::allreduce, {"--max-noise", "2"});
  EXPECT_TRUE(plan.stopping.noise_mode());
  EXPECT_DOUBLE_EQ(plan.stopping.max_time_s, 10.0);
  plan = plan_for(Collective::allreduce, {"--max-noise", "2", "--max-time", "3", "--min-samples", "6"});
  EXPECT_DOUBLE_EQ(plan.stopping.max_time_s, 3.0);
  EXPECT_EQ(plan.stopping.min_samples, 6u);
  EXPECT_THROW(plan_for(Collective::allreduce, {"--max-noise", "2", "--max-time", "0"}), Error);
}

TEST(CollectiveOptions, CommonOptionsReachThePlan) {
  const SweepPlan plan =
      plan_for(Collective::broadcast, {"-T", "7", "--json", "r.json", "--csv", "r.csv", "--backend", "mpi", "-w", "2",
                                       "--show-faults", "--malloc-reuse", "-m", "4", "-z", "1"});
  EXPECT_DOUBLE_EQ(plan.timeout_s, 7.0);
  EXPECT_DOUBLE_EQ(plan.backend_options.timeout_s, 7.0);
  EXPECT_EQ(plan.backend, "mpi");
  EXPECT_EQ(plan.warmup_iters, 2);
  EXPECT_TRUE(plan.show_faults);
  EXPECT_TRUE(plan.malloc_reuse);
  EXPECT_EQ(plan.backend_options.agg_iters, 4);
  EXPECT_TRUE(plan.backend_options.blocking);
}

// What the runner takes from the common options: the backend and its flags, the watchdog and the report files.
TEST(CollectiveOptions, CommonOptionsReachTheRunner) {
  CLI::App app{"test"};
  CollectiveOptions options;
  add_collective_options(app, options);
  std::vector<std::string> args = {
      "-T", "9", "--json",       "r.json",   "--csv", "r.csv", "--md", "r.md", "--backend", "mpi", "--malloc-reuse",
      "-m", "3", "--mpi-thread", "funneled", "-g",    "1"};
  app.parse(std::vector<std::string>(args.rbegin(), args.rend()));
  const RunSettings s = run_settings(options.common, app);
  EXPECT_EQ(s.backend, "mpi");
  EXPECT_DOUBLE_EQ(s.timeout_s, 9.0);
  // in the formats table's order, whatever the command line's
  ASSERT_EQ(s.reports.size(), 3u);
  EXPECT_EQ(s.reports[0].format->option(), "--json");
  EXPECT_EQ(s.reports[0].path, "r.json");
  EXPECT_EQ(s.reports[1].format->option(), "--csv");
  EXPECT_EQ(s.reports[1].path, "r.csv");
  EXPECT_EQ(s.reports[2].format->option(), "--md");
  EXPECT_EQ(s.reports[2].path, "r.md");
  EXPECT_TRUE(s.malloc_reuse);
  EXPECT_EQ(s.backend_options.agg_iters, 3);
  EXPECT_DOUBLE_EQ(s.backend_options.timeout_s, 9.0);
  // -m is NCCL's: on the mpi backend it is said once, and neither used nor recorded; on nccl it stays
  const OptionScope on_mpi = scope_options(s.scoped_options, s.backend_options, "mpi", "mpi");
  EXPECT_EQ(on_mpi.backend_options.agg_iters, 1);
  ASSERT_EQ(on_mpi.ignored.size(), 1u);
  EXPECT_EQ(on_mpi.ignored[0].code, "option_ignored");
  EXPECT_EQ(on_mpi.ignored[0].message,
            "-m/--agg-iters 3 ignored: the mpi backend makes no NCCL group calls (nccl only)");
  const OptionScope on_nccl = scope_options(s.scoped_options, s.backend_options, "nccl", "mpi");
  EXPECT_EQ(on_nccl.backend_options.agg_iters, 3);
  EXPECT_TRUE(on_nccl.ignored.empty());
  // (-g 1 is the default: nothing to say) and --mpi-thread is MPI's, in a job env:// formed
  const OptionScope under_env = scope_options(s.scoped_options, s.backend_options, "nccl", "env");
  ASSERT_EQ(under_env.ignored.size(), 1u);
  EXPECT_EQ(under_env.ignored[0].message,
            "--mpi-thread funneled ignored: MPI is not started under --launcher env (mpi only)");
  const RunSettings defaults = run_settings(CommonOptions{}, CLI::App{"none"});
  EXPECT_EQ(defaults.backend, "auto");
  EXPECT_TRUE(defaults.reports.empty());
}

TEST(CollectiveOptions, SweepOptionsShapeThePlan) {
  const SweepPlan plan = plan_for(Collective::reduce, {"-b", "1K", "-e", "4K", "-d", "int32,float16", "-o", "max", "-r",
                                                       "1", "--placement", "in-place", "--group-size", "2"});
  EXPECT_EQ(plan.sizes, (std::vector<std::uint64_t>{1024, 2048, 4096}));
  EXPECT_EQ(plan.dtypes, (std::vector<DType>{DType::int32, DType::float16}));
  EXPECT_EQ(plan.ops, (std::vector<ReduceOp>{ReduceOp::max}));
  EXPECT_EQ(plan.root, 1);
  EXPECT_EQ(plan.placements, (std::vector<Placement>{Placement::in_place}));
  EXPECT_EQ(plan.group_size, 2);
  // Collectives that do not reduce ignore -o.
  EXPECT_EQ(plan_for(Collective::allgather, {"-o", "max"}).ops, (std::vector<ReduceOp>{ReduceOp::sum}));
}

// nccl-tests' flags where distbench has the same one: -r -1, -c N, -N, -S, -C, fractional sizes.
TEST(CollectiveOptions, NcclTestsFlagsReachThePlan) {
  const SweepPlan defaults = plan_for(Collective::broadcast, {});
  EXPECT_EQ(defaults.root, 0);
  EXPECT_EQ(defaults.check_iters, 1);
  EXPECT_EQ(defaults.cycles, 1);
  EXPECT_FALSE(defaults.timestamps);
  EXPECT_FALSE(defaults.cpu_time);
  EXPECT_TRUE(defaults.ignored_options.empty());

  const SweepPlan plan = plan_for(Collective::broadcast, {"-r", "-1", "-c", "3", "-N", "2", "-S", "1", "-C", "1"});
  EXPECT_EQ(plan.root, kAllRoots);
  EXPECT_EQ(plan.check_iters, 3);
  EXPECT_EQ(plan.cycles, 2);
  EXPECT_TRUE(plan.timestamps);
  EXPECT_TRUE(plan.cpu_time);
  EXPECT_EQ(plan_for(Collective::broadcast, {"-c", "0"}).check_iters, 0);
  EXPECT_EQ(plan_for(Collective::allreduce, {"-b", "1MiB", "-e", "1.5M", "-f", "1.5"}).sizes,
            (std::vector<std::uint64_t>{1048576, 1572864}));
}

TEST(CollectiveOptions, OptionsThatMeanNothingForTheCollectiveAreWarnedAbout) {
  const auto ignored = plan_for(Collective::allgather, {"-o", "max"}).ignored_options;
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_EQ(ignored[0].code, "option_ignored");
  EXPECT_EQ(ignored[0].message, "-o/--op max ignored: allgather does not reduce");
  const auto root = plan_for(Collective::sendrecv, {"-r", "2"}).ignored_options;
  ASSERT_EQ(root.size(), 1u);
  EXPECT_EQ(root[0].message,
            "-r/--root 2 ignored: sendrecv has no root (only broadcast, reduce, gather and scatter do)");
  EXPECT_EQ(plan_for(Collective::allreduce, {"-r", "0", "--fuse", "on"}).ignored_options.size(), 2u);
  // Given where they mean something, or left at their defaults: nothing to say.
  EXPECT_TRUE(plan_for(Collective::reduce, {"-o", "max", "-r", "1"}).ignored_options.empty());
  EXPECT_TRUE(plan_for(Collective::allgather, {}).ignored_options.empty());
  EXPECT_TRUE(plan_for(Collective::allreduce, {"--tensors", "4", "--fuse", "on"}).ignored_options.empty());
}

TEST(CollectiveOptions, RunningForeverIsRefusedWithAWayToRunLong) {
  try {
    plan_for(Collective::allreduce, {"-N", "0"});
    ADD_FAILURE() << "-N 0 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("-N 1000"), std::string::npos) << e.what();
  }
}

TEST(CollectiveOptions, InconsistentInputIsAUsageError) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"-f", "2", "-i", "1K"},
                                                                {"-f", "1"},
                                                                {"-i", "0"},
                                                                {"-d", "float31"},
                                                                {"-o", "bxor", "-d", "float32"},
                                                                {"-b", "2K", "-e", "1K"},
                                                                {"-e", "1.5.2M"},
                                                                {"-b", "1X"},
                                                                {"-e", "M"},
                                                                {"-N", "0"}}) {
    try {
      plan_for(Collective::allreduce, args);
      ADD_FAILURE() << "accepted: " << ::testing::PrintToString(args);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage) << e.what();
    }
  }
}

}  // namespace
}  // namespace distbench::cli
