// The rules of the sweep's closing warnings, on constructed samples: noise judged by the median's 95% confidence
// interval (not stddev/mean), a time pulled from the median and two speeds in a case, all in one line; page faults
// per operation against the message size; each warning one line of at most kWarningColumns with no absurd figure.
#include "benchmarks/collective/sweep_warnings.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace distbench::collective {
namespace {

CaseResult with_samples(std::vector<double> samples, std::uint64_t bytes = 1024) {
  CaseResult r;
  r.collective = "allreduce";
  r.dtype = "float32";
  r.placement = "out-of-place";
  r.bytes = bytes;
  r.samples = std::move(samples);
  r.time = summarize(r.samples);
  r.time_shown = r.time.mean;  // the table's time: the mean, as -a avg over ranks reads it
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

// In the reports only: the warning's detail.
bool details(const std::vector<Warning>& warnings, std::string_view text) {
  return std::any_of(warnings.begin(), warnings.end(),
                     [&](const Warning& w) { return w.detail.find(text) != std::string::npos; });
}

// Every line as printed ("warning: " + message) fits, and holds no figure in scientific notation.
void expect_one_line(const std::vector<Warning>& warnings) {
  for (const Warning& w : warnings) {
    EXPECT_LE(std::string("warning: ").size() + w.message.size(), kWarningColumns) << w.message;
    EXPECT_EQ(w.message.find('\n'), std::string::npos) << w.message;
    EXPECT_EQ(w.message.find("e+"), std::string::npos) << w.message;
    EXPECT_FALSE(w.detail.empty()) << w.code;
  }
}

TEST(SweepWarnings, QuietCasesGiveNoWarning) {
  EXPECT_TRUE(sweep_warnings({with_samples(steady()), with_samples(steady())}, SweepPlan{}).empty());
}

// A preempted sample in most cases of a healthy run is no warning; only where outliers pull the table's time more
// than 25% from the median (the same note as noise: the figure cannot be trusted as it stands).
TEST(SweepWarnings, OutliersWarnOnlyWhereTheyPullTheTablesTime) {
  std::vector<double> one_stall = steady();
  one_stall.push_back(30e-6);  // 5 MADs out, but the mean only 10% above the median
  const CaseResult slight = with_samples(one_stall);
  ASSERT_GT(slight.time.outliers, 0u);
  std::vector<CaseResult> healthy(40, slight);
  healthy.push_back(with_samples(steady()));
  EXPECT_TRUE(sweep_warnings(healthy, SweepPlan{}).empty());

  const CaseResult pulled = with_samples(steady(3));
  ASSERT_GT(pulled.time.noise, 50);                 // stddev/mean would call this very noisy
  ASSERT_LT(pulled.time.median_ci, kNoisyPercent);  // the median is sure
  const auto warnings = sweep_warnings({pulled, slight}, SweepPlan{});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings.front().code, "noisy_median");
  EXPECT_TRUE(mentions(warnings, "1 of 2 cases noisy over 10% (worst 1 KiB: 117%)")) << warnings.front().message;
  EXPECT_TRUE(details(warnings, "1 cases show a time more than 25% from their median, pulled by outlier samples"))
      << warnings.front().detail;
  // A table that shows the median is not pulled.
  CaseResult median_shown = pulled;
  median_shown.time_shown = pulled.time.median;
  EXPECT_TRUE(sweep_warnings({median_shown}, SweepPlan{}).empty());
  expect_one_line(warnings);
}

TEST(SweepWarnings, AnUncertainMedianIsNoise) {
  const auto warnings = sweep_warnings({with_samples(steady()), with_samples(bimodal())}, SweepPlan{});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings.front().code, "noisy_median");
  EXPECT_EQ(warnings.front().message, "1 of 2 cases noisy over 10% (worst 1 KiB: 17%); rerun with --max-noise 2");
  EXPECT_TRUE(details(warnings, "1 of 2 cases have a median uncertain by more than 10%"));
  EXPECT_TRUE(details(warnings, "allreduce 1 KiB float32 out-of-place, +/-16.7% over 20 samples"));
  expect_one_line(warnings);
}

// What a busy machine gave: a median +/-1.1e+05% and a level change of 4.4e+06%. The line caps such a figure, the
// detail keeps it; a range of sizes reads smallest first, whatever order the cases ran in.
TEST(SweepWarnings, AbsurdFiguresAreCappedOnTheLineAndSizesAscend) {
  std::vector<double> wild;
  for (int k = 0; k < 20; ++k) wild.push_back(k % 2 == 0 || k == 19 ? 1e-6 : 1.0);  // 11 at 1 us, 9 at 1 s
  const CaseResult big = with_samples(wild, 128 * 1024);
  const CaseResult small = with_samples(bimodal(), 16 * 1024);
  const auto warnings = sweep_warnings({big, small}, SweepPlan{});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(mentions(warnings, "(worst 128 KiB: >1000%)")) << warnings.front().message;
  EXPECT_TRUE(details(warnings, "+/-49999950.0% over 20 samples")) << warnings.front().detail;
  expect_one_line(warnings);

  auto levels = [](double early, double late, std::uint64_t bytes) {
    std::vector<double> xs;
    for (int k = 0; k < 21; ++k) xs.push_back((k < 11 ? early : late) * (1 + 0.001 * (k % 4)));
    return with_samples(xs, bytes);
  };
  const auto speeds = sweep_warnings({levels(1e-6, 50e-3, 128 * 1024), levels(1e-6, 2e-6, 16 * 1024)}, SweepPlan{});
  EXPECT_TRUE(details(speeds, "(sizes 16 KiB to 128 KiB)")) << speeds.front().detail;
  EXPECT_TRUE(mentions(speeds, ">1000%")) << speeds.front().message;
  expect_one_line(speeds);
}

TEST(SweepWarnings, MissedNoiseTargetsAreReportedInsteadOfNoise) {
  CaseResult r = with_samples(bimodal());
  r.noise_target_met = false;
  SweepPlan plan;
  plan.stopping.max_noise = 1;
  plan.stopping.max_time_s = 2;
  const auto warnings = sweep_warnings({r}, plan);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings.front().message, "1 of 1 cases missed the noise target (marked *): raise --max-time (2 s)");
  EXPECT_TRUE(details(warnings, "1 of 1 cases stopped at --max-time 2 s"));
  expect_one_line(warnings);
}

TEST(SweepWarnings, PageFaultsInsideTheCallNameTheCauseAndTheRemedy) {
  CaseResult small = with_samples(steady(), 128 * 1024);
  small.os_per_op[1].minor_faults = 32;  // a 128 KiB temporary faulted in on every call, on rank 1
  CaseResult large = with_samples(steady(), 64 << 20);
  large.os_per_op[0].minor_faults = 16384;
  CaseResult fine = with_samples(steady(), 64 << 20);
  fine.os_per_op[0].minor_faults = 63;  // under one per MiB of a 64 MiB message: not the cliff
  const auto warnings = sweep_warnings({large, small, fine}, SweepPlan{});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings.front().message,
            "2 of 3 cases took page faults in timed calls (from 128 KiB); add --malloc-reuse");
  EXPECT_TRUE(details(warnings,
                      "(sizes 128 KiB to 64 MiB; worst: allreduce 64 MiB float32 out-of-place, 16384 per "
                      "operation)"))
      << warnings.front().detail;
  EXPECT_TRUE(details(warnings, "GLIBC_TUNABLES"));
  expect_one_line(warnings);

  SweepPlan reusing;
  reusing.malloc_reuse = true;
  EXPECT_TRUE(mentions(sweep_warnings({large}, reusing), "see the report"));
  EXPECT_TRUE(details(sweep_warnings({large}, reusing), "--malloc-reuse is on"));
  expect_one_line(sweep_warnings({large}, reusing));
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
  EXPECT_EQ(warnings[0].message, "1 of 2 cases host-bound: 5%+ above the device's time (to 8 B); try -G or -m");
  EXPECT_TRUE(details(warnings, "a median 14.0 us more per block of 20 operations")) << warnings[0].detail;
  EXPECT_TRUE(details(warnings, "sizes 8 B;"));
  expect_one_line(warnings);
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

// What an H200 showed with ncclMemAlloc's buffers (docs/gpu.md): 128 MiB read 74 us a block for 12 blocks, then
// 66.7 us from the 13th on. The finding names the sizes, the change and what reproduces the peer.
TEST(SweepWarnings, ACaseThatChangesSpeedWhileItRunsIsAFindingWithTheFlagThatReproducesThePeer) {
  auto blocks = [](double early_us, double late_us, int switch_at, std::uint64_t bytes) {
    std::vector<double> xs;
    for (int k = 0; k < 20; ++k) xs.push_back((k < switch_at ? early_us : late_us) * 1e-6 * (1 + 0.001 * (k % 3)));
    CaseResult r = with_samples(xs, bytes);  // the host clock's blocks, and the device's beside
    r.timing = "nccl-tests";
    r.time_shown = r.time.mean * 1.01;
    r.device_time_shown = r.time.mean;
    r.phases.push_back(PhaseStats{"device", xs, summarize(xs), {}});
    return r;
  };
  const CaseResult stepped = blocks(74.0, 66.7, 12, 128u << 20);
  const CaseResult steady_case = blocks(129.0, 129.0, 0, 256u << 20);
  SweepPlan plan;
  plan.backend_options.nccl_mem_alloc = true;
  auto warnings = sweep_warnings({stepped, steady_case}, plan);
  ASSERT_TRUE(has_code(warnings, "speed_changed"));
  EXPECT_EQ(warnings[0].message, "1 of 2 cases changed speed on the GPU (worst 128 MiB: 11%); raise -w");
  EXPECT_TRUE(details(warnings, "differed by up to 10.9% (sizes 128 MiB)")) << warnings[0].detail;
  EXPECT_TRUE(details(warnings, "--blocks 1 reproduces"));
  expect_one_line(warnings);
  plan.backend_options.nccl_mem_alloc = false;  // cudaMalloc's buffers: the peer's allocator is part of the recipe
  EXPECT_TRUE(details(sweep_warnings({stepped}, plan), "--blocks 1 with --alloc ncclMemAlloc reproduces"));
  // Slower at the end (a GPU that throttles) is a change too.
  EXPECT_TRUE(has_code(sweep_warnings({blocks(66.7, 74.0, 8, 128u << 20)}, plan), "speed_changed"));
  // A change within 5%, or one in the middle third only, is none.
  EXPECT_FALSE(has_code(sweep_warnings({blocks(70.0, 67.0, 10, 128u << 20)}, plan), "speed_changed"));
  CaseResult blip = steady_case;
  blip.phases[0].samples[10] *= 1.5;
  EXPECT_FALSE(has_code(sweep_warnings({blip}, plan), "speed_changed"));
  // The same samples timed as samples, fewer than 6 blocks, off a device, or launch-bound: no finding.
  CaseResult sampled = stepped;
  sampled.timing = "sampled";
  EXPECT_FALSE(has_code(sweep_warnings({sampled}, plan), "speed_changed"));
  CaseResult five = stepped;
  five.phases[0].samples = {74e-6, 74e-6, 74e-6, 66e-6, 66e-6};
  EXPECT_FALSE(has_code(sweep_warnings({five}, plan), "speed_changed"));
  CaseResult host = stepped;
  host.device_time_shown = kNotMeasured;
  EXPECT_FALSE(has_code(sweep_warnings({host}, plan), "speed_changed"));
  CaseResult launch_bound = stepped;
  launch_bound.time_shown = stepped.device_time_shown * 1.2;
  EXPECT_FALSE(has_code(sweep_warnings({launch_bound}, plan), "speed_changed"));
  // Judged on the device's blocks: a host clock that alone changed is no finding.
  CaseResult host_only = steady_case;
  for (std::size_t k = 0; k < 7; ++k) host_only.samples[k] *= 1.5;
  EXPECT_FALSE(has_code(sweep_warnings({host_only}, plan), "speed_changed"));
}

// On the host clock: a 4 MiB allreduce that ran 460 us a call, then 590 from its 12th sample on (a shared machine's
// modes, docs/measurements/2026-11-27-allreduce-vs-peers.md), is named in the noise warning; scatter without a level,
// a change under 20 %, or too few samples are not.
TEST(SweepWarnings, AHostTimedCaseThatChangesLevelWhileItRunsIsNamed) {
  auto levels = [](double early_us, double late_us, int switch_at, std::size_t n = 20) {
    std::vector<double> xs;
    for (std::size_t k = 0; k < n; ++k) {
      xs.push_back((static_cast<int>(k) < switch_at ? early_us : late_us) * 1e-6 * (1 + 0.01 * (k % 4)));
    }
    return with_samples(xs, 4u << 20);
  };
  constexpr std::string_view kTwoSpeeds = "cases changed speed while they ran";
  const CaseResult stepped = levels(460, 590, 11);
  auto warnings = sweep_warnings({stepped, levels(460, 460, 0)}, SweepPlan{});
  ASSERT_TRUE(has_code(warnings, "noisy_median"));
  EXPECT_FALSE(has_code(warnings, "speed_changed"));  // the device's own finding only
  EXPECT_TRUE(details(warnings, "1 cases changed speed while they ran")) << warnings.back().detail;
  EXPECT_TRUE(details(warnings, "differed by up to 29.5% (sizes 4 MiB)")) << warnings.back().detail;
  expect_one_line(warnings);
  EXPECT_TRUE(details(sweep_warnings({levels(590, 460, 7)}, SweepPlan{}), kTwoSpeeds));  // faster later
  // One preempted sample in a third is still a level.
  CaseResult preempted = stepped;
  preempted.samples[1] *= 3;
  EXPECT_TRUE(details(sweep_warnings({preempted}, SweepPlan{}), kTwoSpeeds));
  // Not a level: the first third scattered as widely as the change.
  CaseResult scattered = stepped;
  scattered.samples[0] *= 1.6;
  scattered.samples[2] *= 0.7;
  EXPECT_FALSE(details(sweep_warnings({scattered}, SweepPlan{}), kTwoSpeeds));
  EXPECT_FALSE(details(sweep_warnings({levels(460, 540, 10)}, SweepPlan{}), kTwoSpeeds));     // 17 %
  EXPECT_FALSE(details(sweep_warnings({levels(460, 590, 4, 8)}, SweepPlan{}), kTwoSpeeds));   // 8 samples
  EXPECT_FALSE(details(sweep_warnings({with_samples(bimodal())}, SweepPlan{}), kTwoSpeeds));  // interleaved
}

TEST(SweepWarnings, InPlaceCasesOnOneRankSayTheyMoveNothing) {
  CaseResult r = with_samples(steady());
  r.placement = "in-place";
  EXPECT_FALSE(has_code(sweep_warnings({r}, SweepPlan{}), "nothing_moved"));
  r.moves_nothing = true;
  const auto warnings = sweep_warnings({r, r}, SweepPlan{});
  ASSERT_TRUE(has_code(warnings, "nothing_moved"));
  EXPECT_TRUE(mentions(warnings, "2 in-place cases ran on one rank"));
  expect_one_line(warnings);
}

// The widest each line can get: counts of a long sweep, sizes with decimals, the largest figures.
TEST(SweepWarnings, EveryLineFitsWithTheWidestFigures) {
  CaseResult wide = with_samples(bimodal(), (1023ull << 10) + 1000);  // "1023.98 KiB"
  wide.os_per_op[0].minor_faults = 1e9;
  wide.noise_target_met = false;
  wide.time_shown = 1e3;
  wide.device_time_shown = 1e-9;
  wide.ops_per_sample = 1 << 20;
  std::vector<CaseResult> many(10000, wide);  // five digits
  SweepPlan plan;
  plan.stopping.max_noise = 0.125;
  plan.stopping.max_time_s = 12345.5;
  plan.malloc_reuse = true;
  plan.huge_pages = true;
  expect_one_line(sweep_warnings(many, plan));
  plan.malloc_reuse = false;
  for (CaseResult& r : many) {
    r.noise_target_met = true;
    r.moves_nothing = true;
  }
  const auto warnings = sweep_warnings(many, plan);
  EXPECT_TRUE(has_code(warnings, "nothing_moved"));
  expect_one_line(warnings);
  for (CaseResult& r : many) r.moves_nothing = false;
  expect_one_line(sweep_warnings(many, plan));

  CaseResult gpu = wide;  // nccl-tests' timing on a device, its blocks at two speeds a million apart
  gpu.timing = "nccl-tests";
  gpu.time_shown = gpu.device_time_shown = 1e-3;
  std::vector<double> blocks;
  for (int k = 0; k < 20; ++k) blocks.push_back(k < 10 ? 1e-6 : 1.0);
  gpu.phases.push_back(PhaseStats{"device", blocks, summarize(blocks), {}});
  const auto on_gpu = sweep_warnings(std::vector<CaseResult>(10000, gpu), plan);
  EXPECT_TRUE(has_code(on_gpu, "speed_changed"));
  expect_one_line(on_gpu);
}

}  // namespace
}  // namespace distbench::collective
