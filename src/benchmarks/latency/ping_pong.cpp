#include "benchmarks/latency/ping_pong.hpp"

#include "core/comm/connector.hpp"
#include "core/device/pattern.hpp"

namespace distbench::latency {

void PingPong::round_trip(const ArmedStep& step) const {
  if (comm->rank() % 2 == 0) {
    comm->send({send, 0}, bytes, peer(), timeout, step);
    comm->recv({recv, 0}, bytes, peer(), timeout, step);
  } else {
    comm->recv({recv, 0}, bytes, peer(), timeout, step);
    comm->send({send, 0}, bytes, peer(), timeout, step);
  }
}

std::int64_t verify_ping_pong(World& world, const PingPong& pp, Watchdog& watchdog, const std::string& label) {
  Device& device = world.device();
  const PatternParams pattern = make_pattern(Collective::broadcast, ReduceOp::sum, DType::uint8, 2);
  device.poison({pp.recv, 0}, pp.bytes);
  device.fill({pp.send, 0}, pp.bytes, DType::uint8, FillSpec{pattern, pp.comm->rank()});
  device.synchronize();
  {
    const ArmedStep step = watchdog.arm(StepKind::verification, label + ": verification");
    pp.round_trip(step);
    pp.comm->synchronize(pp.timeout);
  }
  const ArmedStep step = watchdog.arm(StepKind::check_count, label + ": counting the wrong bytes");
  const CheckSpec spec{pattern, ReduceOp::sum, Collective::broadcast, pp.bytes, pp.peer(), pp.comm->rank()};
  const auto mine = static_cast<std::int64_t>(device.count_wrong({pp.recv, 0}, DType::uint8, spec));
  std::int64_t total = 0;
  for (auto w : allgather_value(world.connector(), mine, step)) total += w;
  return total;
}

}  // namespace distbench::latency
