// Phases 2 and 3: a verified, timed allreduce over a node's ranks or over all of them.
#include "benchmarks/health/probes.hpp"

#include "core/device/pattern.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace distbench::health {

nlohmann::json probe_allreduce(World& world, Communicator& comm, const HealthPlan& plan, PhaseContext& ctx) {
  Device& device = world.device();
  const std::size_t count = plan.allreduce_bytes / size_of(DType::float32);
  const std::size_t bytes = count * size_of(DType::float32);
  nlohmann::json out = {{"group_size", comm.size()}, {"bytes", bytes}};
  auto send = device.allocate(bytes);
  auto recv = device.allocate(bytes);
  CollectiveCall call;
  call.collective = Collective::allreduce;
  call.send = {send.get(), 0};
  call.recv = {recv.get(), 0};
  call.count = count;
  call.dtype = DType::float32;
  call.op = ReduceOp::sum;
  // Timed on what it checks: without subnormals, which a CPU adds many times slower (pattern.hpp).
  const PatternParams pattern =
      without_subnormals(make_pattern(Collective::allreduce, ReduceOp::sum, DType::float32, comm.size()));
  device.fill(call.send, count, call.dtype, FillSpec{pattern, comm.rank()});
  device.poison(call.recv, bytes);
  device.synchronize();

  const std::string group = fmt::format("allreduce of {} B over {} ranks", bytes, comm.size());
  ctx.step = group + ": warm-up";
  wait_within(*comm.start(call), ctx);
  device.poison(call.recv, bytes);
  device.synchronize();
  ctx.step = group + ": verified call";
  wait_within(*comm.start(call), ctx);
  out["wrong"] = device.count_wrong(comm.result_at(call), call.dtype,
                                    CheckSpec{pattern, call.op, call.collective, count, 0, comm.rank()});

  double best = 0;
  for (int i = 0; i < plan.allreduce_repetitions; ++i) {
    ctx.step = fmt::format("{}: timed call {} of {}", group, i + 1, plan.allreduce_repetitions);
    const auto t0 = Clock::now();
    wait_within(*comm.start(call), ctx);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = i == 0 ? s : std::min(best, s);
  }
  out["best_s"] = best;
  return out;
}

}  // namespace distbench::health
