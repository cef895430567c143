// The watchdog fires for a step that outlives its timeout, names the step, and stays quiet otherwise.
#include "core/sys/watchdog.hpp"

#include "core/sys/deadline.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <limits>
#include <set>
#include <stdexcept>
#include <string_view>
#include <thread>

namespace distbench {
namespace {

using namespace std::chrono_literals;

// -T accepts any finite positive number: 1e10 s is 1e19 ns, past int64; the conversion saturates instead.
TEST(Deadline, HugeTimeoutsSaturate) {
  EXPECT_EQ(timeout_nanoseconds(1.5), 1'500'000'000);
  EXPECT_EQ(timeout_nanoseconds(1e10), 3'000'000'000'000'000'000);
  EXPECT_EQ(timeout_nanoseconds(1e300), 3'000'000'000'000'000'000);
  EXPECT_EQ(timeout_nanoseconds(std::numeric_limits<double>::infinity()), 3'000'000'000'000'000'000);
  EXPECT_EQ(timeout_nanoseconds(-1), 0);
  EXPECT_EQ(timeout_nanoseconds(std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_GT(deadline_after(1e10), std::chrono::steady_clock::now() + std::chrono::hours(24 * 365 * 90));
}

TEST(Watchdog, AHugeTimeoutNeitherFiresNorOverflows) {
  Watchdog watchdog(1e10, [](const std::string&, StepKind, double) { ADD_FAILURE() << "fired"; });
  const ArmedStep guard = watchdog.arm(StepKind::sampling, "a step");
  EXPECT_FALSE(watchdog.overdue());
  EXPECT_EQ(watchdog.step(), "a step");
}

TEST(Watchdog, FiresWithTheStepThatOutlivedTheTimeout) {
  std::promise<std::pair<std::string, double>> fired;
  Watchdog dog(0.1, [&](const std::string& step, StepKind, double timeout) { fired.set_value({step, timeout}); });
  const ArmedStep guard = dog.arm(StepKind::sampling, "allreduce 1 MiB: timed samples");
  auto future = fired.get_future();
  ASSERT_EQ(future.wait_for(5s), std::future_status::ready);
  const auto [step, timeout] = future.get();
  EXPECT_EQ(step, "allreduce 1 MiB: timed samples");
  EXPECT_DOUBLE_EQ(timeout, 0.1);
}

// A signal handler asks whether the step had already timed out (a stopped process continued only to be ended).
TEST(Watchdog, OverdueOnceTheArmedStepOutlivesTheTimeout) {
  Watchdog dog(0.05, [](const std::string&, StepKind, double) {});
  EXPECT_FALSE(dog.overdue());  // disarmed
  {
    const ArmedStep guard = dog.arm(StepKind::sampling, "step");
    EXPECT_FALSE(dog.overdue());
    std::this_thread::sleep_for(150ms);
    EXPECT_TRUE(dog.overdue());
  }
  EXPECT_TRUE(dog.overdue());  // finishing late does not make it in time
}

TEST(Watchdog, DisarmingAStepInTimeEndsIt) {
  Watchdog dog(60, [](const std::string&, StepKind, double) { ADD_FAILURE() << "fired"; });
  {
    const ArmedStep guard = dog.arm(StepKind::sampling, "step");
    EXPECT_EQ(dog.step(), "step");
  }
  EXPECT_FALSE(dog.overdue());
  EXPECT_EQ(dog.step(), "");
}

// A step inside another (a verification's count inside a benchmark's step): the inner one names itself while it
// lasts; once it ends the outer one is armed again, under its own name and kind, its time counted anew.
TEST(Watchdog, AnInnerStepHandsTheWatchBackToTheOuterOne) {
  Watchdog dog(60, [](const std::string&, StepKind, double) { ADD_FAILURE() << "fired"; });
  {
    const ArmedStep outer = dog.arm(StepKind::tp_step, "tp: copy forward");
    {
      const ArmedStep inner = dog.arm(StepKind::check_count, "tp: copy forward: counting");
      EXPECT_EQ(dog.step(), "tp: copy forward: counting");
      EXPECT_EQ(dog.step_kind(), StepKind::check_count);
      EXPECT_EQ(inner.kind(), StepKind::check_count);
    }
    EXPECT_EQ(dog.step(), "tp: copy forward");
    EXPECT_EQ(dog.step_kind(), StepKind::tp_step);
  }
  EXPECT_EQ(dog.step(), "");
  EXPECT_EQ(dog.step_kind(), std::nullopt);
}

// The outer step is still watched after an inner one ends: a wait after the inner step that outlives the timeout
// fires under the outer step's name.
TEST(Watchdog, TheOuterStepStillFiresAfterAnInnerOne) {
  std::promise<std::string> fired;
  Watchdog dog(0.1, [&](const std::string& step, StepKind, double) { fired.set_value(step); });
  const ArmedStep outer = dog.arm(StepKind::gather, "gathering samples");
  { const ArmedStep inner = dog.arm(StepKind::report, "writing"); }
  auto future = fired.get_future();
  ASSERT_EQ(future.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(future.get(), "gathering samples");
}

// Every kind has a name of its own, and the numbers the fault test's breakpoints use stay where they are.
// A bounded wait that times out throws out of its step: the innermost step it left is remembered, kind and words,
// for the report (a wait's own message does not say in which step it waited); arming from nothing forgets it.
TEST(Watchdog, RemembersTheInnermostStepAnErrorLeft) {
  Watchdog watchdog(60, [](const std::string&, StepKind, double) {});
  EXPECT_EQ(watchdog.unwound_kind(), std::nullopt);
  EXPECT_EQ(watchdog.unwound_step(), "");
  try {
    const ArmedStep outer = watchdog.arm(StepKind::train_step, "train, overlap on: steps");
    const ArmedStep inner = watchdog.arm(StepKind::sampling, "allreduce 1 KiB: timed samples");
    throw std::runtime_error("allreduce of 256 elements did not complete within 2 s");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(watchdog.unwound_kind(), StepKind::sampling);
  EXPECT_EQ(watchdog.unwound_step(), "allreduce 1 KiB: timed samples");
  { const ArmedStep next = watchdog.arm(StepKind::report, "writing the results"); }
  EXPECT_EQ(watchdog.unwound_kind(), std::nullopt);
  EXPECT_EQ(watchdog.unwound_step(), "");
}

TEST(Watchdog, StepKindsAreNamedAndNumberedForGood) {
  std::set<std::string_view> names;
  for (int k = 1; k <= kStepKinds; ++k) names.insert(step_kind_name(static_cast<StepKind>(k)));
  EXPECT_EQ(names.size(), static_cast<std::size_t>(kStepKinds));
  EXPECT_EQ(static_cast<int>(StepKind::sampling), 4);
  EXPECT_EQ(static_cast<int>(StepKind::check_count), 7);
  EXPECT_EQ(static_cast<int>(StepKind::finish), 14);
  EXPECT_EQ(step_kind_name(StepKind::check_count), "check count");
}

// A process stopped mid-step and continued may finish that step, re-arm for the next sample, or arm the next step
// before the watchdog's thread looks again (a cluster test saw the root do so, and report "interrupted" when the
// launcher's SIGTERM came): the overrun step stays overdue, under its own name, until the callback runs.
TEST(Watchdog, ReArmingDoesNotHideAnOverrunStep) {
  std::promise<std::string> fired;
  Watchdog dog(0.05, [&](const std::string& step, StepKind, double) { fired.set_value(step); });
  const ArmedStep guard = dog.arm(StepKind::sampling, "sample 7");
  std::this_thread::sleep_for(150ms);
  dog.arm_again();
  EXPECT_TRUE(dog.overdue());
  dog.disarm();
  EXPECT_TRUE(dog.overdue());
  const ArmedStep next = dog.arm(StepKind::sampling, "gathering samples");
  EXPECT_TRUE(dog.overdue());
  EXPECT_EQ(dog.step(), "sample 7");
  auto future = fired.get_future();
  ASSERT_EQ(future.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(future.get(), "sample 7");
}

TEST(Watchdog, QuietWhenStepsFinishInTime) {
  std::atomic<int> fired{0};
  {
    // Steps of 20 ms and re-armed halves of the timeout (a loaded machine may stretch a sleep, not by seconds).
    Watchdog dog(1.0, [&](const std::string&, StepKind, double) { ++fired; });
    for (int i = 0; i < 10; ++i) {
      const ArmedStep guard = dog.arm(StepKind::sampling, "step");
      std::this_thread::sleep_for(20ms);
    }
    dog.arm_again();  // re-armed steps count from the new start
    std::this_thread::sleep_for(600ms);
    dog.arm_again();
    std::this_thread::sleep_for(600ms);
    dog.disarm();
    std::this_thread::sleep_for(1200ms);  // disarmed: never fires
  }
  EXPECT_EQ(fired.load(), 0);
}

TEST(Watchdog, DoesNotFireBeforeTheTimeout) {
  std::atomic<bool> fired{false};
  const auto began = std::chrono::steady_clock::now();
  std::atomic<double> after{0};
  Watchdog dog(0.3, [&](const std::string&, StepKind, double) {
    after = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    fired = true;
  });
  dog.arm_again();
  while (!fired && std::chrono::steady_clock::now() - began < 5s) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(fired);
  EXPECT_GE(after.load(), 0.3);
}

// Stops this very process for `stopped` (SIGSTOP; a forked child sends SIGCONT), as a launcher's user or a frozen host
// would; the watchdog's thread cannot poll meanwhile.
void stop_self_for(std::chrono::milliseconds stopped) {
  const pid_t parent = getpid();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // only async-signal-safe calls here
    const timespec pause{stopped.count() / 1000, (stopped.count() % 1000) * 1000000};
    nanosleep(&pause, nullptr);
    kill(parent, SIGCONT);
    _exit(0);
  }
  raise(SIGSTOP);
  int status = 0;
  waitpid(child, &status, 0);
}

// Stopped between two steps, nothing is armed to run out; the freeze itself is what the peers' timeouts saw, and what
// a signal arriving on resumption must be put down to (a root stopped between cases reported "interrupted").
TEST(Watchdog, SeesAFreezeLongerThanTheTimeoutBetweenSteps) {
  Watchdog dog(0.3, [](const std::string&, StepKind, double) { ADD_FAILURE() << "fired with no step armed"; });
  { const ArmedStep guard = dog.arm(StepKind::sampling, "a step that finished"); }
  EXPECT_FALSE(dog.frozen_s().has_value());
  stop_self_for(900ms);
  const std::optional<double> frozen = dog.frozen_s();  // at once, and once its thread has looked again
  ASSERT_TRUE(frozen.has_value());
  EXPECT_GE(*frozen, 0.8);
  std::this_thread::sleep_for(300ms);
  ASSERT_TRUE(dog.frozen_s().has_value());
  EXPECT_GE(*dog.frozen_s(), 0.8);
  EXPECT_EQ(dog.step(), "");
}

TEST(Watchdog, AFreezeShorterThanTheTimeoutIsNone) {
  Watchdog dog(2.0, [](const std::string&, StepKind, double) { ADD_FAILURE() << "fired"; });
  stop_self_for(300ms);
  EXPECT_FALSE(dog.frozen_s().has_value());
  std::this_thread::sleep_for(200ms);
  EXPECT_FALSE(dog.frozen_s().has_value());
}

}  // namespace
}  // namespace distbench
