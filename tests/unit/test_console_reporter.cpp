// Golden output of the console table (Google Benchmark's output tests style): the whole text, line by line.
#include "core/report/console_reporter.hpp"

#include "tests/support/collective_records.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace distbench {
namespace {

using collective::CaseResult;
using collective::SweepPlan;
using test_support::describe;
using test_support::records;

RunInfo two_hosts_four_ranks() {
  RunInfo info;
  info.tool_version = "0.1.0";
  info.git_sha = "0123456789ab";
  info.start_time = "2024-05-01T10:00:00Z";
  info.world_size = 4;
  info.ranks = {{0, "node-a", 0}, {1, "node-a", 1}, {2, "node-b", 0}, {3, "node-b", 1}};
  return info;
}

CaseResult result(std::string placement, std::uint64_t bytes, double time_us, double algbw, double busbw,
                  std::int64_t wrong) {
  CaseResult r = test_support::allreduce_case(std::move(placement), bytes, 4);
  r.time_shown = time_us * 1e-6;
  r.algbw = algbw;
  r.busbw = busbw;
  r.wrong = wrong;
  return r;
}

TEST(ConsoleReporter, AllreduceSweepWithBothPlacements) {
  RunInfo info = two_hosts_four_ranks();
  SweepPlan plan;
  plan.backend = "mpi";
  plan.sizes = {8, 65536, 1048576};
  plan.stopping.samples = 20;

  std::ostringstream out;
  ConsoleReporter reporter(out);
  reporter.begin(info, describe(plan, info));
  reporter.add(records(
      {result("out-of-place", 8, 12.5, 0.00064, 0.00096, 0), result("in-place", 8, 12.25, 0.000653, 0.00098, 0)}));
  reporter.add(records(
      {result("out-of-place", 65536, 40.126, 1.633, 2.4497, 0), result("in-place", 65536, 39.875, 1.6435, 2.4653, 0)}));
  reporter.add(records({result("out-of-place", 1048576, 250.25, 4.1901, 6.2852, 0),
                        result("in-place", 1048576, 249.996, 4.1944, 6.2916, 2)}));
  info.status = "complete";
  reporter.end(info);

  const std::string expected =
      "# distbench 0.1.0 (git 0123456789ab)\n"
      "# collective: allreduce   backend: mpi   world size: 4   ranks per host: 2 (2 hosts)\n"
      "# group: world (1 group)\n"
      "# sweep: 8 .. 1048576 B, 3 sizes\n"
      "# samples: 20 per case, fewer past 0.05 s of sampling (at least 10)   warm-up: 5 iterations   check: on   time: "
      "interquartile mean of the samples (per sample: mean over ranks, -a avg)\n"
      "# timing: sampled (--timing): the host clock around each sample's operations, one buffer position\n"
      "#\n"
      "#                                                              out-of-place                       in-place      "
      "    \n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
      "#wrong \n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)  "
      "       \n"
      "           8             2     float     sum      -1    12.50    0.00    0.00       0    12.25    0.00    0.00  "
      "     0\n"
      "       65536         16384     float     sum      -1    40.13    1.63    2.45       0    39.88    1.64    2.47  "
      "     0\n"
      "     1048576        262144     float     sum      -1   250.25    4.19    6.29       0   250.00    4.19    6.29  "
      "     2\n"
      "# Out of bounds values : 2 FAILED\n"
      "# Avg bus bandwidth    : 2.91562 \n"
      "#\n";
  EXPECT_EQ(out.str(), expected);
}

// --show-faults: two more columns per placement, the most over ranks; --malloc-reuse is said in the header; an
// explicit -n (no time budget) reads as a plain count.
TEST(ConsoleReporter, FaultColumnsAndMallocReuse) {
  RunInfo info = two_hosts_four_ranks();
  SweepPlan plan;
  plan.backend = "mpi";
  plan.sizes = {65536};
  plan.placements = {Placement::out_of_place};
  plan.stopping.max_time_s = 0;
  plan.show_faults = true;
  plan.malloc_reuse = true;

  CaseResult r = result("out-of-place", 65536, 40.126, 1.633, 2.4497, 0);
  r.os_per_op = {{0.25, 0, 0.5, 0}, {16.5, 0, 0, 0.125}, {1234, 1, 0, 0}, {0, 0, 2, 1}};
  std::ostringstream out;
  ConsoleReporter reporter(out);
  reporter.begin(info, describe(plan, info));
  reporter.add(records({r}));
  info.status = "complete";
  reporter.end(info);

  const std::string expected =
      "# distbench 0.1.0 (git 0123456789ab)\n"
      "# collective: allreduce   backend: mpi   world size: 4   ranks per host: 2 (2 hosts)\n"
      "# group: world (1 group)\n"
      "# sweep: 65536 .. 65536 B, 1 size\n"
      "# samples: 20 per case   warm-up: 5 iterations   check: on   time: interquartile mean of the samples (per sa"
      "mple: mean over ranks, -a avg)\n"
      "# timing: sampled (--timing): the host clock around each sample's operations, one buffer position\n"
      "# malloc: --malloc-reuse (M_MMAP_MAX=0: freed memory stays mapped)\n"
      "#\n"
      "#                                                              out-of-place                       in-place  "
      "               out-of-place \n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   bus"
      "bw  #wrong     faults      csw \n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/"
      "s)              (/op)    (/op) \n"
      "       65536         16384     float     sum      -1    40.13    1.63    2.45       0      nan     nan     n"
      "an    N/A       1235     3.00\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 2.4497 \n"
      "#\n";
  EXPECT_EQ(out.str(), expected);
}

// A failed run: broadcast in groups of 2, noise target, one placement, unchecked, a skipped size, long times.
TEST(ConsoleReporter, FailedBroadcastWithSkippedAndUncheckedResults) {
  RunInfo info;
  info.tool_version = "0.1.0";
  info.git_sha = "unknown";
  info.world_size = 6;
  info.ranks = {{0, "node-a", 0}, {1, "node-a", 1}, {2, "node-a", 2},
                {3, "node-a", 3}, {4, "node-b", 0}, {5, "node-b", 1}};
  SweepPlan plan;
  plan.collective = Collective::broadcast;
  plan.backend = "nccl";
  plan.sizes = {1024, 33554432, 268435456, 1073741824};
  plan.dtypes = {DType::bfloat16};
  plan.placements = {Placement::in_place};
  plan.group_size = 2;
  plan.warmup_iters = 3;
  plan.stopping.max_noise = 0.5;
  plan.stopping.min_samples = 10;
  plan.stopping.max_time_s = 2;
  plan.block_stopping = plan.stopping;
  plan.backend_options.nccl_mem_alloc = true;  // what --timing nccl-tests allocates with by default
  plan.check_iters = 0;
  plan.average = RankAverage::max;

  auto bcast = [](std::uint64_t bytes, double time_us, double bw) {
    CaseResult r = result("in-place", bytes, time_us, bw, bw, -1);
    r.collective = "broadcast";
    r.backend = "nccl";
    r.dtype = "bfloat16";
    r.op = "none";
    r.root = 0;
    r.count = bytes / 2;
    r.nranks = 2;
    r.group = "group-size 2";
    r.groups = 3;
    return r;
  };
  CaseResult noisy = bcast(1024, 18.4, 0.0556);
  noisy.noise_target_met = false;
  CaseResult skipped = bcast(33554432, 0, 0);
  skipped.status = "skipped";
  skipped.skip_reason = "the buffers do not fit in device memory";

  std::ostringstream out;
  ConsoleReporter reporter(out);
  reporter.begin(info, describe(plan, info));
  reporter.add(records({noisy}));
  reporter.add(records({skipped}));
  reporter.add(records({bcast(268435456, 345678.94, 0.7765)}));
  reporter.add(records({bcast(1073741824, 1234567.891, 0.8697)}));
  info.status = "failed";
  info.error = "broadcast of 1073741824 B timed out after 300 s; ranks 3, 5 never arrived";
  reporter.end(info);
  reporter.end(info);  // the first end() is final

  const std::string expected =
      "# distbench 0.1.0 (git unknown)\n"
      "# collective: broadcast   backend: nccl   world size: 6   ranks per host: node-a 4, node-b 2\n"
      "# group: group-size 2 (3 groups of 2 ranks)\n"
      "# sweep: 1024 .. 1073741824 B, 4 sizes\n"
      "# samples: until the median is within +/-0.5% (95% CI; at least 10, at most 2 s per case), each a block of 2"
      "0 operations (-n)   warm-up: 3 at each size (doubling) first, 3 per case   check: off   time: mean of the bl"
      "ocks (per rank, then slowest rank, -a max)\n"
      "# timing: nccl-tests (--timing): the host clock around each block and the wait for its completion, buffer po"
      "sitions rotated per operation as nccl-tests does; the device's events around the same blocks in the reports "
      "(device_time_us, --columns device); buffers from ncclMemAlloc, as all_reduce_perf allocates them (--alloc)\n"
      "#\n"
      "#                                                              out-of-place                       in-place  "
      "            in-place\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   bus"
      "bw  #wrong   noise \n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/"
      "s)           (+-%) \n"
      "        1024           512  bfloat16    none       0      nan     nan     nan    N/A    18.40    0.06    0.0"
      "6    N/A    0.0*\n"
      "#   33554432      16777216  bfloat16    none       0  skipped\n"
      "   268435456     134217728  bfloat16    none       0      nan     nan     nan    N/A   345679    0.78    0.7"
      "8    N/A     0.0\n"
      "  1073741824     536870912  bfloat16    none       0      nan     nan     nan    N/A  1234568    0.87    0.8"
      "7    N/A     0.0\n"
      "# Out of bounds values : 0 OK (nothing was checked)\n"
      "# Avg bus bandwidth    : 0.567267 \n"
      "#\n"
      "# Noise target not met: 1 of 3 results; allow more time per case or relax the noise target\n"
      "# Skipped: 1 result: the buffers do not fit in device memory\n"
      "# Run failed: broadcast of 1073741824 B timed out after 300 s; ranks 3, 5 never arrived\n";
  EXPECT_EQ(out.str(), expected);
}

// Nothing measured: the footer says so instead of averaging nothing.
TEST(ConsoleReporter, NothingMeasured) {
  RunInfo info;
  info.tool_version = "0.1.0";
  info.git_sha = "abc";
  info.world_size = 1;
  SweepPlan plan;
  plan.collective = Collective::alltoall;
  plan.backend = "mpi";
  plan.placements = {Placement::out_of_place};

  std::ostringstream out;
  ConsoleReporter reporter(out);
  reporter.begin(info, describe(plan, info));
  info.status = "complete";
  reporter.end(info);

  const std::string expected =
      "# distbench 0.1.0 (git abc)\n"
      "# collective: alltoall   backend: mpi   world size: 1   ranks per host: unknown\n"
      "# group: world (1 group)\n"
      "# sweep: no sizes\n"
      "# samples: 20 per case, fewer past 0.05 s of sampling (at least 10)   warm-up: 5 iterations   check: on   ti"
      "me: interquartile mean of the samples (per sample: mean over ranks, -a avg)\n"
      "# timing: sampled (--timing): the host clock around each sample's operations, one buffer position\n"
      "#\n"
      "#                                                              out-of-place                       in-place  "
      "        \n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   bus"
      "bw  #wrong \n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/"
      "s)         \n"
      "# Out of bounds values : N/A (not checked)\n"
      "# Avg bus bandwidth    : N/A (nothing measured)\n"
      "#\n";
  EXPECT_EQ(out.str(), expected);
}

}  // namespace
}  // namespace distbench
