// The sampler on a virtual clock: an operation that "takes" a fixed time per run, timed by a timer that reads that
// clock, so calibration, the number of samples and the stopping rules are checked exactly, without timing anything.
#include "core/comm/sampler.hpp"

#include "connectors/single_connector.hpp"
#include "core/device/host_device.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace distbench {
namespace {

// Seconds that pass for each operation run; each batch's length is recorded.
struct VirtualClock {
  double now = 0;
  double per_op = 1e-6;
  std::vector<int> batches;  // `times` of every run() call, in order
  int synchronized = 0;
  int timers_made = 0;
};

class VirtualTimer final : public Timer {
 public:
  explicit VirtualTimer(const VirtualClock& clock) : clock_(clock) {}
  void start() override { start_ = clock_.now; }
  void stop() override { stop_ = clock_.now; }
  double seconds() override { return stop_ - start_; }

 private:
  const VirtualClock& clock_;
  double start_ = 0, stop_ = 0;
};

TimedOperation operation(VirtualClock& clock) {
  return {"virtual op",
          [&clock](int times, const ArmedStep&) {
            clock.batches.push_back(times);
            clock.now += clock.per_op * times;
          },
          [&clock](Seconds) { ++clock.synchronized; },
          [&clock] {
            ++clock.timers_made;
            return std::make_unique<VirtualTimer>(clock);
          },
          {}};
}

Watchdog quiet_watchdog() {
  return Watchdog(60.0, [](const std::string& step, StepKind, double) { FAIL() << "watchdog expired in " << step; });
}

TEST(Sampler, WarmsUpCalibratesAndTakesTheSamplesThatFitTheBudget) {
  VirtualClock clock;
  clock.per_op = 1.0 / 524288;  // 1.907 us, exact in binary: k = ceil(0.5 ms / 1.907 us) = ceil(262.1) = 263
  connectors::SingleConnector connector;
  auto watchdog = quiet_watchdog();
  SamplingRules rules;
  rules.warmup_iters = 5;
  const Sampling s = sample_operation(connector, operation(clock), rules, watchdog);
  EXPECT_EQ(clock.batches.front(), 5);  // the warm-up comes first
  // Probes double from 1 until one lasts 0.05 ms (32 ops = 61 us), then two more of the same size.
  EXPECT_EQ(std::vector<int>(clock.batches.begin() + 1, clock.batches.begin() + 9),
            (std::vector<int>{1, 2, 4, 8, 16, 32, 32, 32}));
  EXPECT_EQ(s.ops_per_sample, 263);
  ASSERT_EQ(s.samples.size(), 20u);  // 20 samples of 0.5 ms fit the 0.05 s budget
  for (double x : s.samples) EXPECT_NEAR(x, clock.per_op, 1e-15);
  EXPECT_TRUE(s.noise_target_met);
  EXPECT_EQ(clock.batches.size(), 1u + 8u + 20u);
  EXPECT_EQ(clock.synchronized, 1 + 8 + 20);  // every batch is waited for
}

// What runs before the samples (the sweep poisons there the results it checks after them) runs once, after the
// warm-up and the calibration, before the first timed batch, outside every timer.
TEST(Sampler, BeforeSamplesRunsOnceBetweenTheCalibrationAndTheFirstSample) {
  VirtualClock clock;
  clock.per_op = 1.0 / 524288;
  connectors::SingleConnector connector;
  auto watchdog = quiet_watchdog();
  SamplingRules rules;
  rules.warmup_iters = 5;
  std::vector<std::size_t> batches_before;  // batches run when it was called
  const Sampling s = sample_operation(connector, operation(clock), rules, watchdog, {}, [&] {
    batches_before.push_back(clock.batches.size());
    clock.now += 1.0;  // a second on the clock: no sample may contain it
  });
  EXPECT_EQ(batches_before, (std::vector<std::size_t>{1u + 8u}));  // the warm-up and the 8 probes
  ASSERT_EQ(s.samples.size(), 20u);
  for (double x : s.samples) EXPECT_NEAR(x, clock.per_op, 1e-15);
}

TEST(Sampler, SlowOperationsTakeFewerSamplesButNeverFewerThanTheMinimum) {
  VirtualClock clock;
  clock.per_op = 1.0 / 256;  // 3.9 ms: one per sample; 12 fit 0.05 s
  connectors::SingleConnector connector;
  auto watchdog = quiet_watchdog();
  SamplingRules rules;
  Sampling s = sample_operation(connector, operation(clock), rules, watchdog);
  EXPECT_EQ(s.ops_per_sample, 1);
  EXPECT_EQ(s.samples.size(), 12u);

  clock.per_op = 1.0 / 64;  // 15.6 ms: 3 would fit; the minimum of 10 holds
  s = sample_operation(connector, operation(clock), rules, watchdog);
  EXPECT_EQ(s.samples.size(), 10u);

  rules.stopping.max_time_s = 0;  // no budget (an explicit -n): exactly -n
  s = sample_operation(connector, operation(clock), rules, watchdog);
  EXPECT_EQ(s.samples.size(), 20u);
}

TEST(Sampler, ANoiseTargetStopsOnceTheMedianIsKnown) {
  VirtualClock clock;
  clock.per_op = 1.0 / 1024;
  connectors::SingleConnector connector;
  auto watchdog = quiet_watchdog();
  SamplingRules rules;
  rules.warmup_iters = 0;
  rules.stopping.max_noise = 1.0;
  rules.stopping.min_samples = 7;
  rules.stopping.max_time_s = 10;
  const Sampling s = sample_operation(connector, operation(clock), rules, watchdog);
  EXPECT_EQ(s.samples.size(), 7u);  // identical samples: the target is met as soon as it may be judged
  EXPECT_TRUE(s.noise_target_met);
}

TEST(Sampler, VeryFastOperationsAreCappedAtTenThousandPerSample) {
  VirtualClock clock;
  clock.per_op = 1.0 / (1 << 30);
  connectors::SingleConnector connector;
  auto watchdog = quiet_watchdog();
  SamplingRules rules;
  rules.stopping.max_time_s = 0;
  rules.stopping.samples = 3;
  const Sampling s = sample_operation(connector, operation(clock), rules, watchdog);
  EXPECT_EQ(s.ops_per_sample, 10000);
  EXPECT_EQ(s.samples.size(), 3u);
}

// A composite operation: each phase is timed on its own, inside every operation of a sample, and the phases add up
// to the whole sample; the warm-up runs every phase untimed.
TEST(Sampler, PhasesAreTimedSeparatelyInsideEverySample) {
  VirtualClock clock;
  connectors::SingleConnector connector;
  auto watchdog = quiet_watchdog();
  std::vector<std::string> ran;
  auto phase = [&clock, &ran](std::string name, double seconds) {
    return TimedPhase{name,
                      [&clock, &ran, name, seconds](const ArmedStep&) {
                        ran.push_back(name);
                        clock.now += seconds;
                      },
                      [&clock] { return std::make_unique<VirtualTimer>(clock); }};
  };
  TimedOperation op = operation(clock);
  op.run = [](int, const ArmedStep&) { FAIL() << "run() is not used when the operation has phases"; };
  op.phases = {phase("reduce", 3.0 / 524288), phase("update", 1.0 / 524288)};  // exact in binary
  SamplingRules rules;
  rules.warmup_iters = 2;
  rules.stopping.max_time_s = 0;
  rules.stopping.samples = 4;
  const Sampling s = sample_operation(connector, op, rules, watchdog);
  EXPECT_EQ(std::vector<std::string>(ran.begin(), ran.begin() + 4),
            (std::vector<std::string>{"reduce", "update", "reduce", "update"}));
  EXPECT_EQ(s.ops_per_sample, 66);  // ceil(0.5 ms / 7.63 us)
  ASSERT_EQ(s.samples.size(), 4u);
  ASSERT_EQ(s.phase_samples.size(), 2u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(s.samples[i], 4.0 / 524288, 1e-15);
    EXPECT_NEAR(s.phase_samples[0][i], 3.0 / 524288, 1e-15);
    EXPECT_NEAR(s.phase_samples[1][i], 1.0 / 524288, 1e-15);
  }
}

// A Device makes timers too, for compute-only phases: the host's is the monotonic clock.
TEST(Sampler, ADeviceTimesComputeOnlyPhases) {
  HostDevice device;
  auto timer = device.make_timer();
  timer->start();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  timer->stop();
  EXPECT_GE(timer->seconds(), 0.020);
  EXPECT_LT(timer->seconds(), 5.0);
}

TEST(Sampler, FixedBlocksSkipCalibrationAndKeepASecondTimerBeside) {
  // nccl-tests' timing: every sample is a block of exactly n operations; one first block plans the count; a second
  // timer (the device's events) runs around the same blocks, inside the first.
  VirtualClock clock;
  clock.per_op = 1.0 / 65536;  // 15.3 us: a block of 20 lasts 305 us, 163 fit the 0.05 s budget: 20 blocks
  connectors::SingleConnector connector;
  auto watchdog = quiet_watchdog();
  SamplingRules rules;
  rules.warmup_iters = 1;
  rules.fixed_ops_per_sample = 20;
  int beside_made = 0;
  const TimerFactory beside = [&] {
    ++beside_made;
    return std::make_unique<VirtualTimer>(clock);
  };
  const Sampling s = sample_operation(connector, operation(clock), rules, watchdog, beside);
  EXPECT_EQ(s.ops_per_sample, 20);
  EXPECT_EQ(clock.batches.front(), 1);  // the warm-up
  for (std::size_t i = 1; i < clock.batches.size(); ++i) EXPECT_EQ(clock.batches[i], 20) << "batch " << i;
  EXPECT_EQ(clock.batches.size(), 1u + 1u + 20u);  // warm-up, the first block, 20 timed blocks
  ASSERT_EQ(s.samples.size(), 20u);
  ASSERT_EQ(s.beside_samples.size(), 20u);
  EXPECT_EQ(beside_made, 20);  // around timed blocks only
  for (std::size_t i = 0; i < s.samples.size(); ++i) {
    EXPECT_NEAR(s.samples[i], clock.per_op, 1e-15);
    EXPECT_NEAR(s.beside_samples[i], clock.per_op, 1e-15);
  }
}

TEST(Sampler, AFixedCountOfFixedBlocksTimesTheFirstBlockItRuns) {
  // --blocks N: nothing depends on how long a block takes, so no untimed block precedes the timed ones (nccl-tests
  // times the first block after its warm-up).
  VirtualClock clock;
  connectors::SingleConnector connector;
  auto watchdog = quiet_watchdog();
  SamplingRules rules;
  rules.warmup_iters = 1;
  rules.fixed_ops_per_sample = 20;
  rules.stopping = StoppingRule{.samples = 1, .max_noise = 0.0, .min_samples = 1, .max_time_s = 0.0};
  const Sampling s = sample_operation(connector, operation(clock), rules, watchdog);
  EXPECT_EQ(clock.batches, (std::vector<int>{1, 20}));  // the warm-up, then the one timed block
  EXPECT_EQ(s.samples.size(), 1u);
  clock.batches.clear();
  rules.stopping.max_time_s = 1.0;  // a time budget: one untimed block plans how many fit
  sample_operation(connector, operation(clock), rules, watchdog);
  EXPECT_EQ(clock.batches, (std::vector<int>{1, 20, 20}));
}

TEST(Sampler, TheHostClockThroughCompletionStopsAfterTheWait) {
  bool waited = false;
  HostThroughCompletionTimer timer([&waited] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    waited = true;
  });
  timer.start();
  timer.stop();
  EXPECT_TRUE(waited);
  EXPECT_GE(timer.seconds(), 0.019);  // the wait is inside the time
}

// OSU's and IMB's loops (--timing osu|imb): every call alone, untimed ones first, then exactly the count asked for,
// each waited for; no calibration and no batch that is not one of them; one timer for all the calls, as the peers read
// one clock (a timer made per call is work between two calls, which reaches the others' calls where ranks share CPUs).
TEST(Sampler, ThePeersLoopTimesOneCallAtATimeExactlyAsManyTimesAsAsked) {
  VirtualClock clock;
  clock.per_op = 1.0 / 1024;  // 1 ms: a time budget would cut 1000 samples short; a fixed count must not
  connectors::SingleConnector connector;
  auto watchdog = quiet_watchdog();
  StoppingRule exactly;
  exactly.samples = exactly.min_samples = 1000;
  exactly.max_time_s = 0;
  SamplingRules rules{100, exactly, Seconds(300.0), 1};
  rules.barrier_after_sample = true;
  const Sampling s = sample_operation(connector, operation(clock), rules, watchdog);
  EXPECT_EQ(clock.batches, std::vector<int>(1100, 1));  // 100 untimed, 1000 timed, one call each
  EXPECT_EQ(clock.synchronized, 1100);
  EXPECT_EQ(clock.timers_made, 1);
  EXPECT_EQ(s.ops_per_sample, 1);
  ASSERT_EQ(s.samples.size(), 1000u);
  for (double x : s.samples) EXPECT_DOUBLE_EQ(x, clock.per_op);
}

}  // namespace
TEST(Sampler, AMinimumOfOperationsRaisesTheSamplesWithinItsTimeLimit) {
  // osu_latency's 1000 timed round trips at 5 per sample: 200 samples of 0.4 ms fit in 1 s
  EXPECT_EQ(samples_for_min_ops(20, 1000, 5, 0.4e-3, 1.0), 200u);
  EXPECT_EQ(samples_for_min_ops(20, 1001, 5, 0.4e-3, 1.0), 201u);  // rounded up: at least the count
  // the time limit stops it short: 3 ms per sample, 333 fit in 1 s
  EXPECT_EQ(samples_for_min_ops(20, 1000, 1, 3e-3, 1.0), 333u);
  // never fewer than the stopping rule planned, nor more when the minimum is already met
  EXPECT_EQ(samples_for_min_ops(20, 1000, 1, 0.2, 1.0), 20u);
  EXPECT_EQ(samples_for_min_ops(20, 10000, 2250, 0.5e-3, 1.0), 20u);
  EXPECT_EQ(samples_for_min_ops(20, 0, 1, 1e-3, 1.0), 20u);
  // an unknown sample length (0): the count alone
  EXPECT_EQ(samples_for_min_ops(10, 1000, 4, 0.0, 1.0), 250u);
}

}  // namespace distbench
