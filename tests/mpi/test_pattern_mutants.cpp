// The fill patterns' mutation suite: communicators that get a dtype's width, sign or exponent range wrong (seams in
// this test, never in the product), each run through the sweep's own case (measure_case: timed samples, then the
// verification the sweep makes) on the MPI backend. Every mutant must give wrong elements; the real communicator none,
// for every dtype and operator. With the earlier patterns (small integers) every one of these mutants passed.
#include "core/comm/forwarding_communicator.hpp"
#include "tests/mpi/mpi_environment.hpp"

#include "benchmarks/collective/measure.hpp"
#include "core/comm/groups.hpp"
#include "core/device/half.hpp"
#include "core/device/pattern.hpp"
#include "tests/support/test_step.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace distbench::collective::pattern_mutants {
namespace {

using mpitest::world;

constexpr std::size_t kCount = 1000;  // elements per call: many periods of every pattern

// The mutant, moved into a seam: unsigned integers sent as their signed twins (mpi_types.cpp mapping uint32
// to MPI_INT32_T, say), so that MPI compares and the average divides them as signed.
class SignedTwin final : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
  void run(const CollectiveCall& call, const ArmedStep& step) override { real().run(twin(call), step); }
  std::unique_ptr<Work> start(const CollectiveCall& call) override { return real().start(twin(call)); }

 private:
  static CollectiveCall twin(CollectiveCall call) {
    if (call.dtype == DType::uint8) call.dtype = DType::int8;
    if (call.dtype == DType::uint32) call.dtype = DType::int32;
    if (call.dtype == DType::uint64) call.dtype = DType::int64;
    return call;
  }
};

// How a narrower or flushing reduction leaves a floating-point result.
enum class Narrowing {
  through_float32,   // float64 reduced in float32 (a wrong type mapping, or a float accumulator)
  through_bfloat16,  // float32 reduced in bfloat16 (the same exponent range, 8 significant bits)
  flush_subnormals,  // subnormal results flushed to zero (a reduction built with -ffast-math: FTZ/DAZ)
};

bool is_subnormal16(std::uint16_t bits, int mantissa) {
  return ((bits & 0x7fffu) >> mantissa) == 0 && (bits & ((1u << mantissa) - 1u)) != 0;
}

// The result of every call rewritten as the narrowing would leave it (an allreduce: count elements, where the real
// communicator leaves them).
class Narrowed final : public ForwardingCommunicator {
 public:
  Narrowed(Communicator& real, Narrowing how) : ForwardingCommunicator(real), how_(how) {}
  void run(const CollectiveCall& call, const ArmedStep& step) override {
    real().run(call, step);
    void* data = result_at(call).data();
    for (std::size_t i = 0; i < call.count; ++i) narrow(data, i, call.dtype);
  }
  std::unique_ptr<Work> start(const CollectiveCall&) override {
    ADD_FAILURE() << "the sweep's sampled case runs blocking calls only";
    return nullptr;
  }

 private:
  void narrow(void* data, std::size_t i, DType t) const {
    if (t == DType::float64) {
      auto* v = static_cast<double*>(data) + i;
      if (how_ == Narrowing::through_float32) *v = static_cast<float>(*v);
      if (how_ == Narrowing::flush_subnormals && std::fpclassify(*v) == FP_SUBNORMAL) *v = 0.0;
    } else if (t == DType::float32) {
      auto* v = static_cast<float*>(data) + i;
      if (how_ == Narrowing::through_bfloat16) *v = bfloat16_to_float(float_to_bfloat16(*v));
      if (how_ == Narrowing::flush_subnormals && std::fpclassify(*v) == FP_SUBNORMAL) *v = 0.0f;
    } else if (t == DType::float16 || t == DType::bfloat16) {
      auto* v = static_cast<std::uint16_t*>(data) + i;
      if (how_ == Narrowing::flush_subnormals && is_subnormal16(*v, t == DType::float16 ? 10 : 7)) *v &= 0x8000u;
    }
  }
  Narrowing how_;
};

// One allreduce case as the sweep runs it (out of place, two samples), its wrong elements over all ranks.
std::int64_t sweep_case(Communicator& comm, DType t, ReduceOp op) {
  const std::size_t bytes = kCount * size_of(t);
  auto send = world().device().allocate(bytes);
  auto recv = world().device().allocate(bytes);
  CaseSetup s;
  s.call = {Collective::allreduce, {send.get(), 0}, {recv.get(), 0}, kCount, t, op, 0};
  s.size = case_geometry(Collective::allreduce, t, bytes, comm.size(), comm.rank());
  s.recv_bytes = bytes;
  s.poison_at = s.call.recv;
  s.pattern = make_pattern(Collective::allreduce, op, t, comm.size());
  s.label = std::string("allreduce ") + std::string(name(t)) + " " + std::string(name(op));
  SweepPlan plan;
  plan.warmup_iters = 1;
  plan.stopping.samples = 2;
  plan.stopping.min_samples = 1;
  plan.stopping.max_time_s = 0;
  Watchdog watchdog(120, [](const std::string& step, StepKind, double) { ADD_FAILURE() << "overdue: " << step; });
  return measure_case(world(), comm, plan, watchdog, s).wrong;
}

Communicator& group() { return world().communicator(world_partition(mpitest::connector().size()), test_step()); }

TEST(PatternMutants, TheRealCommunicatorPassesEveryDtypeAndOperator) {
  for (DType t : all_dtypes()) {
    for (ReduceOp op : all_reduce_ops()) {
      if (!defined_for(op, t)) continue;
      EXPECT_EQ(sweep_case(group(), t, op), 0) << name(t) << " " << name(op);
    }
  }
}

// min, max and avg see the sign (sum, prod and the bitwise operators are the same bits in two's complement).
TEST(PatternMutants, UnsignedSentAsSignedIsCaught) {
  if (group().size() < 2) GTEST_SKIP() << "one rank reduces nothing";
  SignedTwin mutant(group());
  for (DType t : {DType::uint8, DType::uint32, DType::uint64}) {
    for (ReduceOp op : {ReduceOp::min, ReduceOp::max, ReduceOp::avg}) {
      EXPECT_GT(sweep_case(mutant, t, op), 0) << name(t) << " " << name(op) << " sent as signed survived";
    }
  }
}

TEST(PatternMutants, NarrowerFloatingPointIsCaught) {
  Narrowed float32(group(), Narrowing::through_float32);
  Narrowed bfloat16(group(), Narrowing::through_bfloat16);
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max, ReduceOp::avg}) {
    EXPECT_GT(sweep_case(float32, DType::float64, op), 0) << "float64 through float32, " << name(op);
    EXPECT_GT(sweep_case(bfloat16, DType::float32, op), 0) << "float32 through bfloat16, " << name(op);
  }
}

TEST(PatternMutants, FlushedSubnormalsAreCaught) {
  Narrowed flushing(group(), Narrowing::flush_subnormals);
  for (DType t : {DType::float16, DType::bfloat16, DType::float32, DType::float64}) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max, ReduceOp::avg}) {
      EXPECT_GT(sweep_case(flushing, t, op), 0) << name(t) << " " << name(op) << " with subnormals flushed";
    }
  }
}

}  // namespace
}  // namespace distbench::collective::pattern_mutants
