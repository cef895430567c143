// Phase 6: when each rank arrives at a collective after the same local work.
#include "benchmarks/health/probes.hpp"

#include "core/device/pattern.hpp"

#include <fmt/format.h>

#include <chrono>

namespace distbench::health {
namespace {

constexpr std::size_t kWorkElements = std::size_t{1} << 18;  // 1 MiB of float32 filled and checked per iteration

}  // namespace

nlohmann::json probe_stragglers(World& world, Communicator& world_comm, const HealthPlan& plan, PhaseContext& ctx) {
  Device& device = world.device();
  auto work = device.allocate(kWorkElements * size_of(DType::float32));
  auto token = device.allocate(2 * size_of(DType::float32));
  const PatternParams pattern = make_pattern(Collective::broadcast, ReduceOp::sum, DType::float32, 1);
  CollectiveCall call;
  call.collective = Collective::allreduce;
  call.send = {token.get(), 0};
  call.recv = {token.get(), size_of(DType::float32)};
  call.count = 1;
  call.dtype = DType::float32;
  device.fill(call.send, 1, call.dtype, FillSpec{pattern, 0});
  nlohmann::json arrivals = nlohmann::json::array(), work_ns = nlohmann::json::array();
  auto ns = [](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  };
  for (int i = 0; i < plan.straggler_iterations; ++i) {
    ctx.step = fmt::format("straggler iteration {} of {}", i + 1, plan.straggler_iterations);
    const BufferRef at{work.get(), 0};
    const auto began = Clock::now();
    device.fill(at, kWorkElements, DType::float32, FillSpec{pattern, 0});
    device.count_wrong(at, DType::float32,
                       CheckSpec{pattern, ReduceOp::sum, Collective::broadcast, kWorkElements, 0, 0});
    const auto arrived = Clock::now();
    arrivals.push_back(ns(arrived));
    work_ns.push_back(ns(arrived) - ns(began));
    wait_within(*world_comm.start(call), ctx);
  }
  return {{"arrival_ns", arrivals}, {"work_ns", work_ns}};
}

}  // namespace distbench::health
