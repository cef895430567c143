// The rules of the sweep's closing warnings, on constructed samples: noise judged by the median's 95% confidence
// interval (not stddev/mean), and page faults per operation against the message size.
#include "benchmarks/collective/sweep_warnings.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace distbench {
namespace {

CaseResult with_samples(std::vector<double> samples, std::uint64_t bytes = 1024) {
  CaseResult r;
  r.collective = "allreduce";
  r.dtype = "float32";
  r.placement = "out-of-place";
  r.bytes = bytes;
  r.samples = std::move(samples);
  r.time = summarize(r.samples);
  r.os_per_op = {OsCounters{}, OsCounters{}};
  return r;
}

// 20 samples within +/-1% of 10 us, then `preempted` more at 100 us.
std::vector<double> steady(int preempted = 0) {
  std::vector<double> xs;
  for (int k = 0; k < 20; ++k) xs.push_back(10e-6 * (0.99 + 0.001 * k));
  for (int k = 0; k < preempted; ++k) xs.push_back(100e-6);
  return xs;
}

// Two clusters, 10 us and 14 us, interleaved: the median itself is uncertain.
std::vector<double> bimodal() {
  std::vector<double> xs;
  for (int k = 0; k < 20; ++k) xs.push_back(k % 2 == 0 ? 10e-6 : 14e-6);
  return xs;
}

bool mentions(const std::vector<Warning>& warnings, std::string_view text) {
  return std::any_of(warnings.begin(), warnings.end(),
                     [&](const Warning& w) { return w.message.find(text) != std::string::npos; });
}

TEST(SweepWarnings, QuietCasesGiveNoWarning) {
  EXPECT_TRUE(sweep_warnings({with_samples(steady()), with_samples(steady())}, SweepPlan{}).empty());
}

TEST(SweepWarnings, AFewPreemptedSamplesAreOutliersNotNoise) {
  const CaseResult r = with_samples(steady(3));
  ASSERT_GT(r.time.noise, 50);  // stddev/mean would call this very noisy
  const auto warnings = sweep_warnings({r}, SweepPlan{});
  EXPECT_FALSE(mentions(warnings, "uncertain")) << warnings.front().message;
  EXPECT_EQ(warnings.front().code, "outliers");
  EXPECT_TRUE(mentions(warnings, "1 cases had outlier samples"));
}

TEST(SweepWarnings, AnUncertainMedianIsNoise) {
  const auto warnings = sweep_warnings({with_samples(steady()), with_samples(bimodal())}, SweepPlan{});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings.front().code, "noisy_median");
  EXPECT_TRUE(mentions(warnings, "1 of 2 cases have a median uncertain by more than 5%"));
  EXPECT_TRUE(mentions(warnings, "allreduce 1 KiB float32 out-of-place, +/-16.7% over 20 samples"));
  EXPECT_TRUE(mentions(warnings, "--max-noise"));
}

TEST(SweepWarnings, MissedNoiseTargetsAreReportedInsteadOfNoise) {
  CaseResult r = with_samples(bimodal());
  r.noise_target_met = false;
  SweepPlan plan;
  plan.stopping.max_noise = 1;
  plan.stopping.max_time_s = 2;
  const auto warnings = sweep_warnings({r}, plan);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(mentions(warnings, "1 of 1 cases stopped at --max-time 2 s"));
}

TEST(SweepWarnings, PageFaultsInsideTheCallNameTheCauseAndTheRemedy) {
  CaseResult small = with_samples(steady(), 128 * 1024);
  small.os_per_op[1].minor_faults = 32;  // a 128 KiB temporary faulted in on every call, on rank 1
  CaseResult large = with_samples(steady(), 64 << 20);
  large.os_per_op[0].minor_faults = 16384;
  CaseResult fine = with_samples(steady(), 64 << 20);
  fine.os_per_op[0].minor_faults = 63;  // under one per MiB of a 64 MiB message: not the cliff
  const auto warnings = sweep_warnings({small, large, fine}, SweepPlan{});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(mentions(warnings, "2 of 3 cases took page faults inside the timed calls"));
  EXPECT_TRUE(mentions(warnings, "64 MiB float32 out-of-place, 16384 per operation"));
  EXPECT_TRUE(mentions(warnings, "--malloc-reuse"));

  SweepPlan reusing;
  reusing.malloc_reuse = true;
  EXPECT_TRUE(mentions(sweep_warnings({large}, reusing), "--malloc-reuse is on"));
}

TEST(SweepWarnings, LessThanOneFaultPerOperationIsNoCliff) {
  CaseResult r = with_samples(steady(), 8);
  r.os_per_op[0].minor_faults = 0.5;
  EXPECT_TRUE(sweep_warnings({r}, SweepPlan{}).empty());
}

TEST(SweepWarnings, SkippedCasesAreNotJudged) {
  CaseResult r = with_samples(bimodal());
  r.status = "skipped";
  EXPECT_TRUE(sweep_warnings({r}, SweepPlan{}).empty());
}

bool has_code(const std::vector<Warning>& warnings, std::string_view code) {
  return std::any_of(warnings.begin(), warnings.end(), [&](const Warning& w) { return w.code == code; });
}

TEST(SweepWarnings, AHostClockWellAboveTheDevicesTimeIsAFindingWithItsSizePerBlock) {
  // nccl-tests' timing on a GPU: 5.2 us on the host clock, 4.5 on the device's events, blocks of 20: 14 us a block.
  CaseResult small = with_samples(steady(), 8);
  small.time_shown = 5.2e-6;
  small.device_time_shown = 4.5e-6;
  small.ops_per_sample = 20;
  CaseResult large = with_samples(steady(), 1 << 30);
  large.time_shown = 500e-6;
  large.device_time_shown = 499e-6;  // within 5%: no finding
  large.ops_per_sample = 20;
  auto warnings = sweep_warnings({small, large}, SweepPlan{});
  ASSERT_TRUE(has_code(warnings, "host_bound"));
  EXPECT_TRUE(mentions(warnings, "1 of 2 cases read more than 5% above the device's own time")) << warnings[0].message;
  EXPECT_TRUE(mentions(warnings, "a median 14.0 us more per block of 20 operations"));
  EXPECT_TRUE(mentions(warnings, "sizes 8 B to 8 B"));
  // Without the device's time (sampled timing, MPI), or with -C 1 (the host clock stops at the last enqueue): none.
  small.device_time_shown = kNotMeasured;
  EXPECT_FALSE(has_code(sweep_warnings({small, large}, SweepPlan{}), "host_bound"));
  small.device_time_shown = 4.5e-6;
  SweepPlan cpu_time;
  cpu_time.cpu_time = true;
  EXPECT_FALSE(has_code(sweep_warnings({small, large}, cpu_time), "host_bound"));
  // A case that moves nothing is no finding about the transfer either.
  small.moves_nothing = true;
  EXPECT_FALSE(has_code(sweep_warnings({small, large}, SweepPlan{}), "host_bound"));
}

// What an H200 showed with ncclMemAlloc's buffers (docs/gpu.md): the first block of 256 MiB read 10% above the
// blocks after it; all_reduce_perf times that block alone. The finding names the sizes and what reproduces the peer.
TEST(SweepWarnings, AFirstBlockSlowerThanTheRestIsAFindingWithTheFlagThatReproducesThePeer) {
  auto blocks = [](double first_us, double later_us, std::uint64_t bytes) {
    std::vector<double> xs{first_us * 1e-6};
    for (int k = 0; k < 19; ++k) xs.push_back(later_us * 1e-6 * (1 + 0.001 * (k % 3)));
    CaseResult r = with_samples(xs, bytes);  // the host clock's blocks, and the device's beside
    r.timing = "nccl-tests";
    r.time_shown = later_us * 1.01e-6;
    r.device_time_shown = later_us * 1e-6;
    r.phases.push_back(PhaseStats{"device", xs, summarize(xs), {}});
    return r;
  };
  const CaseResult cold = blocks(143.0, 129.0, 256u << 20);
  const CaseResult warm = blocks(7.5, 7.4, 8u << 20);  // 1.4% above: within the 5% a first block may read
  SweepPlan plan;
  plan.backend_options.nccl_mem_alloc = true;
  auto warnings = sweep_warnings({warm, cold}, plan);
  ASSERT_TRUE(has_code(warnings, "first_block_slower"));
  EXPECT_TRUE(mentions(warnings, "1 of 2 cases read their first timed block more than 5% slower")) << warnings[0].message;
  EXPECT_TRUE(mentions(warnings, "up to 1.11x, sizes 256 MiB to 256 MiB"));
  EXPECT_TRUE(mentions(warnings, "--blocks 1 reproduces"));
  plan.backend_options.nccl_mem_alloc = false;  // cudaMalloc's buffers: the peer's allocator is part of the recipe
  EXPECT_TRUE(mentions(sweep_warnings({cold}, plan), "--blocks 1 with --alloc ncclMemAlloc reproduces"));
  // The same samples timed as samples (no first pass over rotated positions), or two blocks only: no finding.
  CaseResult sampled = cold;
  sampled.timing = "sampled";
  EXPECT_FALSE(has_code(sweep_warnings({sampled}, plan), "first_block_slower"));
  CaseResult two = cold;
  two.samples.resize(2);
  two.phases[0].samples.resize(2);
  EXPECT_FALSE(has_code(sweep_warnings({two}, plan), "first_block_slower"));
  // Off a device (no device time: MPI under --timing nccl-tests) the peer it points to does not apply.
  CaseResult host = cold;
  host.device_time_shown = kNotMeasured;
  EXPECT_FALSE(has_code(sweep_warnings({host}, plan), "first_block_slower"));
  // Launch-bound (the host clock well above the device's): a slow first block is the host's, not the memory's.
  CaseResult launch_bound = cold;
  launch_bound.time_shown = cold.device_time_shown * 1.2;
  EXPECT_FALSE(has_code(sweep_warnings({launch_bound}, plan), "first_block_slower"));
  // Judged on the device's blocks: a host clock whose first block alone was slow is no finding.
  CaseResult host_only = warm;
  host_only.samples.front() *= 1.5;
  EXPECT_FALSE(has_code(sweep_warnings({host_only}, plan), "first_block_slower"));
}

TEST(SweepWarnings, InPlaceCasesOnOneRankSayTheyMoveNothing) {
  CaseResult r = with_samples(steady());
  r.placement = "in-place";
  EXPECT_FALSE(has_code(sweep_warnings({r}, SweepPlan{}), "nothing_moved"));
  r.moves_nothing = true;
  const auto warnings = sweep_warnings({r, r}, SweepPlan{});
  ASSERT_TRUE(has_code(warnings, "nothing_moved"));
  EXPECT_TRUE(mentions(warnings, "2 in-place cases ran on one rank"));
}

}  // namespace
}  // namespace distbench
