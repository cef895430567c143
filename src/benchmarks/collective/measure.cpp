#include "benchmarks/collective/measure.hpp"

namespace distbench {
namespace {

std::int64_t verify(World& world, Communicator& comm, const CaseSetup& setup, Watchdog& watchdog, Seconds timeout) {
  Device& device = world.device();
  const auto& call = setup.call;
  device.poison(setup.poison_at, setup.recv_bytes);
  device.fill(call.send, setup.send_count, call.dtype, FillSpec{setup.pattern, comm.rank()});
  device.synchronize();
  {
    auto guard = watchdog.arm(setup.label + ": verification");
    comm.run(call);
    comm.synchronize(timeout);
  }
  const CheckSpec spec{setup.pattern, call.op, call.collective, call.count, call.root, comm.rank()};
  const auto mine = static_cast<std::int64_t>(device.count_wrong(comm.result_at(call), call.dtype, spec));
  const auto all = allgather_value(world.connector(), mine);
  std::int64_t total = 0;
  for (auto w : all) total += w;
  return total;
}

}  // namespace

Measured measure_case(World& world, Communicator& comm, const SweepPlan& plan, Watchdog& watchdog,
                      const CaseSetup& setup) {
  const Seconds timeout(plan.timeout_s);
  const auto& call = setup.call;
  world.device().fill(call.send, setup.send_count, call.dtype, FillSpec{setup.pattern, comm.rank()});

  const TimedOperation op{setup.label, [&comm, &call](int times) { comm.run_repeated(call, times); },
                          [&comm](Seconds t) { comm.synchronize(t); }, [&comm] { return comm.make_timer(); }, {}};
  Measured out;
  out.sampling = sample_operation(world.connector(), op, {plan.warmup_iters, plan.stopping, timeout}, watchdog);
  if (plan.check) out.wrong = verify(world, comm, setup, watchdog, timeout);
  return out;
}

}  // namespace distbench
