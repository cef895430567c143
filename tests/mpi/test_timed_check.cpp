// The collective sweep's check covers what is timed (issue 57): mutants of the communicator, each a test that fails
// if the case's check (measure_case, -c 1, the default) lets it through. A series whose timed calls move half the
// data while every untimed call (warm-up, calibration, verification) is right must give wrong elements, for every
// timing method and for a --tensors list; a rooted collective that always takes rank 0's data must give wrong
// elements at the default root 0. The right communicator gives none.
#include "core/comm/forwarding_communicator.hpp"
#include "tests/mpi/mpi_environment.hpp"
#include "tests/support/test_step.hpp"

#include "benchmarks/collective/measure.hpp"
#include "core/comm/groups.hpp"
#include "core/device/pattern.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace distbench::collective {
namespace {

using mpitest::world;

// Mutant: every timed call (the sampler's sampling step) moves half the data; warm-up, calibration and the
// verification call are right.
class HalvesTimedCalls final : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
  void run(const CollectiveCall& call, const ArmedStep& step) override {
    CollectiveCall half = call;
    if (step.kind() == StepKind::sampling) half.count = call.count / 2;
    real().run(half, step);
  }
};

// Mutant: nccl-tests' timed calls are wrong at every rotated position but the case's own (the one its verification
// call runs at).
class HalvesRotatedTimedCalls final : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
  void run(const CollectiveCall& call, const ArmedStep& step) override {
    CollectiveCall half = call;
    if (step.kind() == StepKind::sampling && call.recv.byte_offset > 0) half.count = call.count / 2;
    real().run(half, step);
  }
};

// Mutant: a rooted collective always rooted at rank 0, whatever root it is asked for.
class AlwaysFromRankZero final : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
  void run(const CollectiveCall& call, const ArmedStep& step) override {
    CollectiveCall from_zero = call;
    from_zero.root = 0;
    real().run(from_zero, step);
  }
};

// The right communicator with a log of the calls the timed samples make (count, send and receive offsets).
class LoggedTimedCalls final : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
  std::vector<std::string> log;
  void run(const CollectiveCall& call, const ArmedStep& step) override {
    if (step.kind() == StepKind::sampling) {
      log.push_back(fmt::format("{} at {}/{}", call.count, call.send.byte_offset, call.recv.byte_offset));
    }
    real().run(call, step);
  }
};

// The right communicator, through the same seam.
class Unchanged final : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
};

Communicator& world_comm() { return world().communicator(world_partition(mpitest::connector().size()), test_step()); }

// A case as the sweep sets it up (sweep.cpp: make_setup, place_buffers), in buffers that hold 8 of its footprints, so
// that nccl-tests' timing rotates over several positions.
struct TimedCheckCase {
  std::unique_ptr<Buffer> send, recv;
  CaseSetup setup;
};

struct CaseAsked {
  Collective collective = Collective::allreduce;
  ReduceOp op = ReduceOp::sum;
  Placement placement = Placement::out_of_place;
  Timing timing = Timing::sampled;
  int tensors = 1;
  bool fused = false;
  std::uint64_t bytes = 4096;
  int root = 0;
};

std::unique_ptr<TimedCheckCase> timed_check_case(Communicator& comm, const CaseAsked& a) {
  constexpr DType t = DType::float32;
  auto c = std::make_unique<TimedCheckCase>();
  CaseSetup& s = c->setup;
  s.size = case_geometry(a.collective, t, a.bytes, comm.size(), comm.rank());
  c->send = world().device().allocate(8 * s.size.in_place_bytes());
  c->recv = world().device().allocate(8 * s.size.in_place_bytes());
  s.call = {a.collective, {}, {}, s.size.count, t, a.op, a.root};
  s.pattern = make_pattern(a.collective, a.op, t, comm.size());
  s.label = fmt::format("{} {} B {} {} {}", name(a.collective), a.bytes, name(a.op), name(a.placement), name(a.timing));
  s.timing = a.timing;
  s.tensors = a.tensors;
  s.fused = a.fused;
  const CaseGeometry& g = s.size;
  if (a.placement == Placement::in_place) {
    s.call.send = {c->recv.get(), g.shape.in_place_send_offset * g.elem};
    s.call.recv = {c->recv.get(), g.shape.in_place_recv_offset * g.elem};
    s.poison_at = {c->recv.get(), 0};
    s.recv_bytes = g.in_place_bytes();
  } else {
    s.call.send = {c->send.get(), 0};
    s.call.recv = {c->recv.get(), 0};
    s.poison_at = s.call.recv;
    s.recv_bytes = g.recv_bytes();
  }
  return c;
}

// A few samples of each method, -c 1 (the default).
SweepPlan short_plan() {
  SweepPlan plan;
  plan.warmup_iters = 2;
  plan.stopping = StoppingRule{.samples = 3, .max_noise = 0.0, .min_samples = 3, .max_time_s = 0.0};
  plan.block_stopping = plan.stopping;
  plan.block_iters = 8;
  plan.iters_given = 4;
  plan.warmup_given = 1;
  plan.timeout_s = 60.0;
  return plan;
}

std::int64_t wrong_of(Communicator& comm, const CaseAsked& asked, const SweepPlan& plan = short_plan()) {
  auto c = timed_check_case(comm, asked);
  Watchdog watchdog(60, [](const std::string& step, StepKind, double) { ADD_FAILURE() << "overdue: " << step; });
  return measure_case(world(), comm, plan, watchdog, c->setup).wrong;
}

constexpr Timing kTimings[] = {Timing::sampled, Timing::nccl_tests, Timing::osu, Timing::imb};

// The mutant's timed calls leave half a result: every method counts wrong elements, out of place (a default
// placement), and in place where the timed result is checkable (an idempotent operator); the right calls none.
TEST(TimedCheck, HalfTheDataInTheTimedCallsIsWrongForEveryMethod) {
  Communicator& real = world_comm();
  HalvesTimedCalls mutant(real);
  Unchanged right(real);
  for (Collective c : all_collectives()) {
    for (Timing timing : kTimings) {
      const CaseAsked asked{.collective = c, .timing = timing};
      // One rank broadcasting: its result is its own send buffer, which no call writes (what MPI promises the root).
      if (!(c == Collective::broadcast && real.size() == 1)) {
        EXPECT_GT(wrong_of(mutant, asked), 0) << name(c) << " " << name(timing) << ": the mutant survived";
      }
      EXPECT_EQ(wrong_of(right, asked), 0) << name(c) << " " << name(timing);
    }
  }
  if (real.size() < 2) return;  // in place, one rank's input is its result: half a call leaves nothing wrong
  for (Timing timing : kTimings) {
    const CaseAsked asked{.op = ReduceOp::max, .placement = Placement::in_place, .timing = timing};
    EXPECT_GT(wrong_of(mutant, asked), 0) << "in place, max, " << name(timing) << ": the mutant survived";
    EXPECT_EQ(wrong_of(right, asked), 0) << "in place, max, " << name(timing);
  }
}

// nccl-tests' timing rotates over buffer positions: each is checked, not only the case's own.
TEST(TimedCheck, EveryRotatedPositionIsChecked) {
  HalvesRotatedTimedCalls mutant(world_comm());
  for (Placement p : {Placement::out_of_place, Placement::in_place}) {
    const CaseAsked asked{.op = ReduceOp::max, .placement = p, .timing = Timing::nccl_tests};
    if (p == Placement::in_place && mutant.size() < 2) continue;  // one rank's input is its result
    EXPECT_GT(wrong_of(mutant, asked), 0) << name(p) << ": the mutant survived";
  }
}

// What runs in the timed samples is the same with the check as without it (-c 0): the same calls in the same order
// for the methods whose counts do not depend on time (nccl-tests with --blocks, osu and imb with -n), the same calls
// for sampled (its calibration decides how many).
TEST(TimedCheck, TheTimedCallsAreTheSameWithTheCheckAsWithout) {
  LoggedTimedCalls logged(world_comm());
  for (Timing timing : kTimings) {
    for (Placement p : {Placement::out_of_place, Placement::in_place}) {
      const CaseAsked asked{.op = ReduceOp::max, .placement = p, .timing = timing};
      std::vector<std::string> with, without;
      SweepPlan plan = short_plan();
      EXPECT_EQ(wrong_of(logged, asked, plan), 0);
      with.swap(logged.log);
      plan.check_iters = 0;
      EXPECT_EQ(wrong_of(logged, asked, plan), -1);
      without.swap(logged.log);
      ASSERT_FALSE(with.empty()) << name(timing);
      if (timing == Timing::sampled) {
        std::sort(with.begin(), with.end());
        with.erase(std::unique(with.begin(), with.end()), with.end());
        std::sort(without.begin(), without.end());
        without.erase(std::unique(without.begin(), without.end()), without.end());
      }
      EXPECT_EQ(with, without) << name(timing) << " " << name(p);
    }
  }
}

// A list (--tensors, in place, sampled): per tensor and fused, with an idempotent operator.
TEST(TimedCheck, HalfTheDataInTheTimedCallsIsWrongForLists) {
  Communicator& real = world_comm();
  if (real.size() < 2) GTEST_SKIP() << "in place, one rank's input is its result";
  HalvesTimedCalls mutant(real);
  Unchanged right(real);
  for (bool fused : {false, true}) {
    const CaseAsked asked{.op = ReduceOp::max, .placement = Placement::in_place, .tensors = 3, .fused = fused};
    EXPECT_GT(wrong_of(mutant, asked), 0) << (fused ? "fused" : "per tensor") << ": the mutant survived";
    EXPECT_EQ(wrong_of(right, asked), 0) << (fused ? "fused" : "per tensor");
  }
}

// With -c 0 nothing is checked, the timed calls included.
TEST(TimedCheck, NoCheckCountsNothing) {
  HalvesTimedCalls mutant(world_comm());
  SweepPlan plan = short_plan();
  plan.check_iters = 0;
  EXPECT_EQ(wrong_of(mutant, CaseAsked{}, plan), -1);
}

// Every collective, placement, checkable operator and method: the right calls give no wrong element (the in-place
// timed results that are checked are those a call leaves unchanged when run again).
TEST(TimedCheck, TheRightCallsPassEverywhere) {
  Unchanged right(world_comm());
  const int n = right.size();
  for (Collective c : all_collectives()) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::max, ReduceOp::avg}) {
      if (!is_reduction(c) && op != ReduceOp::sum) continue;
      for (Placement p : {Placement::out_of_place, Placement::in_place}) {
        for (Timing timing : kTimings) {
          for (int root : {0, n - 1}) {
            if (!is_rooted(c) && root != 0) continue;
            const CaseAsked asked{.collective = c, .op = op, .placement = p, .timing = timing, .root = root};
            EXPECT_EQ(wrong_of(right, asked), 0)
                << name(c) << " " << name(op) << " " << name(p) << " " << name(timing) << " root " << root;
          }
        }
      }
    }
  }
}

// Always from rank 0: every rooted collective, both placements, at the default root 0.
TEST(TimedCheck, RootedCollectivesAlwaysFromRankZeroAreWrongAtTheDefaultRoot) {
  Communicator& real = world_comm();
  if (real.size() < 2) GTEST_SKIP() << "one rank has no other root";
  AlwaysFromRankZero mutant(real);
  for (Collective c : all_collectives()) {
    if (!is_rooted(c)) continue;
    for (Placement p : {Placement::out_of_place, Placement::in_place}) {
      const CaseAsked asked{.collective = c, .placement = p};
      EXPECT_GT(wrong_of(mutant, asked), 0) << name(c) << " " << name(p) << ": the mutant survived";
    }
  }
}

}  // namespace
}  // namespace distbench::collective
