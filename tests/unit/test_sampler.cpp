// The sampler on a virtual clock: an operation that "takes" a fixed time per run, timed by a timer that reads that
// clock, so calibration, the number of samples and the stopping rules are checked exactly, without timing anything.
#include "core/sampler.hpp"

#include "tests/support/local_connector.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace distbench {
namespace {

// Seconds that pass for each operation run; each batch's length is recorded.
struct VirtualClock {
  double now = 0;
  double per_op = 1e-6;
  std::vector<int> batches;  // `times` of every run() call, in order
  int synchronized = 0;
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
          [&clock](int times) {
            clock.batches.push_back(times);
            clock.now += clock.per_op * times;
          },
          [&clock](Seconds) { ++clock.synchronized; },
          [&clock] { return std::make_unique<VirtualTimer>(clock); }};
}

Watchdog quiet_watchdog() {
  return Watchdog(60.0, [](const std::string& step, double) { FAIL() << "watchdog expired in " << step; });
}

TEST(Sampler, WarmsUpCalibratesAndTakesTheSamplesThatFitTheBudget) {
  VirtualClock clock;
  clock.per_op = 1.0 / 524288;  // 1.907 us, exact in binary: k = ceil(0.5 ms / 1.907 us) = ceil(262.1) = 263
  test_support::LocalConnector connector;
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

TEST(Sampler, SlowOperationsTakeFewerSamplesButNeverFewerThanTheMinimum) {
  VirtualClock clock;
  clock.per_op = 1.0 / 256;  // 3.9 ms: one per sample; 12 fit 0.05 s
  test_support::LocalConnector connector;
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
  test_support::LocalConnector connector;
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
  test_support::LocalConnector connector;
  auto watchdog = quiet_watchdog();
  SamplingRules rules;
  rules.stopping.max_time_s = 0;
  rules.stopping.samples = 3;
  const Sampling s = sample_operation(connector, operation(clock), rules, watchdog);
  EXPECT_EQ(s.ops_per_sample, 10000);
  EXPECT_EQ(s.samples.size(), 3u);
}

}  // namespace
}  // namespace distbench
