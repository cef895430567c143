#include "benchmarks/collective/measure.hpp"

#include "benchmarks/collective/fused_allreduce.hpp"
#include "benchmarks/collective/peer_counts.hpp"
#include "benchmarks/collective/rotation.hpp"
#include "core/measure/timer.hpp"

#include <algorithm>
#include <functional>
#include <memory>

namespace distbench::collective {
namespace {

// One call of a case inside the step it runs in, waited for.
using CheckedCall = std::function<void(const ArmedStep&)>;

// Fills the send region, runs the case once, and counts wrong elements of the result over all ranks.
std::int64_t verify(World& world, Communicator& comm, const CaseSetup& setup, const CheckedCall& once,
                    Watchdog& watchdog) {
  Device& device = world.device();
  const auto& call = setup.call;
  device.poison(setup.poison_at, setup.recv_bytes);
  device.fill(call.send, setup.send_count, call.dtype, FillSpec{setup.pattern, comm.rank()});
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

// The list of tensors a --tensors case reduces: consecutive slices of the in-place buffer, so that every element
// keeps its index and the whole buffer checks as one allreduce.
std::vector<TensorRef> tensor_list(const CaseSetup& setup) {
  const auto& call = setup.call;
  const auto n = static_cast<std::size_t>(setup.tensors);
  const std::size_t each = call.count / n, elem = size_of(call.dtype);
  std::vector<TensorRef> out;
  for (std::size_t k = 0; k < n; ++k) {
    out.push_back({call.recv.at(k * each * elem), k + 1 == n ? call.count - k * each : each});
  }
  return out;
}

// -c N: up to N verifications, each on freshly filled and poisoned buffers; the wrong elements of the first that
// finds any (as nccl-tests counts them), 0 when all pass, -1 when N is 0. Every rank takes the same decisions: the
// counts are summed over all ranks.
std::int64_t verify_times(int times, World& world, Communicator& comm, const CaseSetup& setup,
                          const CheckedCall& once, Watchdog& watchdog) {
  std::int64_t wrong = -1;
  for (int k = 0; k < times && wrong <= 0; ++k) wrong = verify(world, comm, setup, once, watchdog);
  return wrong;
}

// The host clock around a timed batch: until its last call is enqueued (-C 1, `enqueue_only`), else through the
// work's completion, polled without sleeping as nccl-tests does; the clock alone where the backend's calls are
// complete on return (`complete_on_return`).
TimerFactory host_clock(Communicator& comm, Seconds timeout, bool enqueue_only, bool complete_on_return) {
  return [&comm, timeout, plain = enqueue_only || complete_on_return]() -> std::unique_ptr<Timer> {
    if (plain) return std::make_unique<HostTimer>();
    return std::make_unique<HostThroughCompletionTimer>([&comm, timeout] { comm.synchronize_spinning(timeout); });
  };
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
  const Seconds timeout(plan.timeout_s);
  const auto& call = setup.call;
  world.device().fill(call.send, setup.send_count, call.dtype, FillSpec{setup.pattern, comm.rank()});
  const SamplingRules rules{plan.warmup_iters, plan.stopping, timeout};
  // -C 1: the host clock, which for a backend that enqueues (nccl) stops once the calls are enqueued.
  const auto comm_timer = [&comm, host = plan.cpu_time]() -> std::unique_ptr<Timer> {
    if (host) return std::make_unique<HostTimer>();
    return comm.make_timer();
  };
  const auto sync = [&comm](Seconds t) { comm.synchronize(t); };
  // One call, waited for: what a check verifies.
  const auto waited = [&comm, timeout](const CollectiveCall& c) {
    return CheckedCall([&comm, &c, timeout](const ArmedStep& step) {
      comm.run(c, step);
      comm.synchronize(timeout);
    });
  };
  const CheckedCall one_call = waited(call);
  Measured out;

  const Timing timing = setup.timing;
  if (setup.tensors <= 1 && timing == Timing::nccl_tests) {
    // nccl-tests' method: blocks of -n (x -m, x -G) operations at rotating positions, on the host clock from before
    // the first enqueue until the streams are idle (polled without sleeping, as nccl-tests does; with -C 1 until
    // the last is enqueued), and the device's events around the same block beside.
    const BackendOptions& o = plan.backend_options;
    const int ops = plan.block_iters * std::max(1, o.agg_iters) * std::max(1, o.graph_launches);
    const std::vector<CollectiveCall> calls = rotated_calls(setup, ops);
    SamplingRules blocks{plan.warmup_iters, plan.block_stopping, timeout, ops};
    const TimedOperation op{setup.label,
                            [&comm, &calls](int times, const ArmedStep& step) { comm.run_series(calls, times, step); },
                            sync,
                            host_clock(comm, timeout, plan.cpu_time, false), {}};
    TimerFactory device_timer;
    if (comm.runs_on_device()) device_timer = [&comm] { return comm.make_timer(); };
    out.sampling = sample_operation(world.connector(), op, blocks, watchdog, device_timer);
    out.wrong = verify_times(plan.check_iters, world, comm, setup, one_call, watchdog);
    return out;
  }

  if (setup.tensors <= 1 && (timing == Timing::osu || timing == Timing::imb)) {
    // The peers' loops: one call at a time on the host clock through its completion, a barrier after each outside
    // the timer, their own counts of timed and untimed calls at each size; the table's mean per rank is their
    // per-rank average, and -a avg (the default) their average over ranks; and their call where MPI has two forms
    // (reduce-scatter: MPI_Reduce_scatter, not distbench's MPI_Reduce_scatter_block).
    const PeerCounts counts = peer_counts(plan, timing, setup.bytes);
    const auto n = static_cast<std::size_t>(counts.iterations);
    SamplingRules calls{counts.warmup, StoppingRule{.samples = n, .max_noise = 0.0, .min_samples = n, .max_time_s = 0.0},
                        timeout, 1};
    calls.barrier_after_sample = true;
    CollectiveCall peers_call = call;  // timed and checked
    peers_call.form = CallForm::vector;
    const Communicator::PreparedCall once = comm.prepared(peers_call);
    const TimedOperation op{setup.label, [&once](int times, const ArmedStep& step) {
                              for (int i = 0; i < times; ++i) once(step);
                            },
                            sync, host_clock(comm, timeout, plan.cpu_time, !comm.runs_on_device()), {}};
    out.sampling = sample_operation(world.connector(), op, calls, watchdog);
    out.wrong = verify_times(plan.check_iters, world, comm, setup, waited(peers_call), watchdog);
    return out;
  }

  if (setup.tensors <= 1) {
    const TimedOperation op{
        setup.label, [&comm, &call](int times, const ArmedStep& step) { comm.run_repeated(call, times, step); }, sync,
        comm_timer, {}};
    out.sampling = sample_operation(world.connector(), op, rules, watchdog);
    out.wrong = verify_times(plan.check_iters, world, comm, setup, one_call, watchdog);
    return out;
  }

  const std::vector<TensorRef> tensors = tensor_list(setup);
  CheckedCall once;
  if (setup.fused) {
    Device& device = world.device();
    FusedAllreduce fused(comm, device);
    CollectiveCall packed;
    const auto device_timer = [&device] { return device.make_timer(); };
    const TimedOperation op{setup.label,
                            {},
                            sync,
                            comm_timer,
                            {{"pack", [&](const ArmedStep&) { packed = fused.pack(tensors, call.dtype, call.op); },
                              device_timer},
                             {"allreduce",
                              [&](const ArmedStep& step) {
                                comm.run(packed, step);
                                comm.synchronize(timeout);
                              },
                              comm_timer},
                             {"unpack", [&](const ArmedStep&) { fused.unpack(tensors, call.dtype); }, device_timer}}};
    out.sampling = sample_operation(world.connector(), op, rules, watchdog);
    once = [&](const ArmedStep& step) { fused.run(tensors, call.dtype, call.op, timeout, step); };
    out.wrong = verify_times(plan.check_iters, world, comm, setup, once, watchdog);
    return out;
  }
  // One allreduce per tensor, back to back.
  std::vector<CollectiveCall> calls;
  for (const TensorRef& t : tensors) {
    CollectiveCall c = call;
    c.send = c.recv = t.data;
    c.count = t.count;
    calls.push_back(c);
  }
  const TimedOperation op{setup.label,
                          [&comm, &calls](int times, const ArmedStep& step) {
                            for (int i = 0; i < times; ++i) {
                              for (const CollectiveCall& c : calls) comm.run(c, step);
                            }
                          },
                          sync,
                          comm_timer,
                          {}};
  out.sampling = sample_operation(world.connector(), op, rules, watchdog);
  out.wrong = verify_times(
      plan.check_iters, world, comm, setup,
      [&](const ArmedStep& step) {
        for (const CollectiveCall& c : calls) comm.run(c, step);
        comm.synchronize(timeout);
      },
      watchdog);
  return out;
}

}  // namespace distbench::collective
