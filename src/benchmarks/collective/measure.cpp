#include "benchmarks/collective/measure.hpp"

#include "benchmarks/collective/rotation.hpp"
#include "benchmarks/collective/timing_method.hpp"

#include <functional>

namespace distbench::collective {
namespace {

// One run of a case inside the step it runs in, waited for.
using CheckedCall = std::function<void(const ArmedStep&)>;

// What every case starts from: its send region filled with its pattern.
void fill_send(World& world, Communicator& comm, const CaseSetup& setup) {
  const auto& call = setup.call;
  world.device().fill(call.send, setup.size.shape.send_count, call.dtype, FillSpec{setup.pattern, comm.rank()});
}

// Fills the send region, runs the case once, and counts wrong elements of the result over all ranks.
std::int64_t verify(World& world, Communicator& comm, const CaseSetup& setup, const CheckedCall& once,
                    Watchdog& watchdog) {
  Device& device = world.device();
  const auto& call = setup.call;
  device.poison(setup.poison_at, setup.recv_bytes);
  fill_send(world, comm, setup);
  device.synchronize();
  {
    const ArmedStep step = watchdog.arm(StepKind::verification, setup.label + ": verification");
    once(step);
  }
  // Counting may wait on a device, agreeing on the count on every rank: a step of its own.
  const ArmedStep step = watchdog.arm(StepKind::check_count, setup.label + ": counting the wrong elements");
  const CheckSpec spec{setup.pattern, call.op, call.collective, call.count, call.root, comm.rank()};
  const auto mine = static_cast<std::int64_t>(device.count_wrong(comm.result_at(call), call.dtype, spec));
  const auto all = allgather_value(world.connector(), mine, step);
  std::int64_t total = 0;
  for (auto w : all) total += w;
  return total;
}

// -c N: up to N verifications, each on freshly filled and poisoned buffers; the wrong elements of the first that
// finds any (as nccl-tests counts them), 0 when all pass, -1 when N is 0. Every rank takes the same decisions: the
// counts are summed over all ranks.
std::int64_t verify_times(int times, World& world, Communicator& comm, const CaseSetup& setup, const CheckedCall& once,
                          Watchdog& watchdog) {
  std::int64_t wrong = -1;
  for (int k = 0; k < times && wrong <= 0; ++k) wrong = verify(world, comm, setup, once, watchdog);
  return wrong;
}

}  // namespace

void warm_up_sizes(Communicator& comm, const SweepPlan& plan, Watchdog& watchdog,
                   const std::vector<CaseSetup>& setups) {
  if (plan.warmup_iters <= 0 || setups.empty()) return;
  // On whatever the buffers hold, as nccl-tests: filling them first would change what is measured after (on a GPU,
  // memory of ncclMemAlloc's that nothing has written can read slower until it has been read a number of times).
  const Seconds timeout(plan.timeout_s);
  for (const CaseSetup& setup : setups) {
    const ArmedStep step = watchdog.arm(StepKind::warm_up, setup.label + ": warm-up of the sweep");
    const std::vector<CollectiveCall> calls = rotated_calls(setup, plan.warmup_iters);
    for (int k = 0; k < plan.warmup_iters; ++k) comm.run(calls[static_cast<std::size_t>(k) % calls.size()], step);
    comm.synchronize(timeout);
  }
}

Measured measure_case(World& world, Communicator& comm, const SweepPlan& plan, Watchdog& watchdog,
                      const CaseSetup& setup) {
  fill_send(world, comm, setup);
  const std::unique_ptr<TimedCase> timed =
      method_of(setup).prepare(CaseContext{world, comm, plan, setup, Seconds(plan.timeout_s)});
  Measured out;
  out.sampling = sample_operation(world.connector(), timed->operation(), timed->rules(), watchdog, timed->beside());
  out.wrong = verify_times(
      plan.check_iters, world, comm, setup, [&timed](const ArmedStep& step) { timed->run_checked(step); }, watchdog);
  return out;
}

}  // namespace distbench::collective
