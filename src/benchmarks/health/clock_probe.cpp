// Phase 1, clocks: offsets of every node's clocks from the root's (Cristian's method over the connector).
#include "benchmarks/health/probes.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>

namespace distbench::health {
namespace {

constexpr int kRoundTrips = 8;

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}
std::int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

nlohmann::json probe_clock(Connector& connector, const std::vector<int>& leaders, PhaseContext& ctx) {
  nlohmann::json out = nlohmann::json::object();
  const int root = connector.root_rank();
  const int me = connector.rank();
  if (me != root) {
    if (std::find(leaders.begin(), leaders.end(), me) == leaders.end()) return out;
    ctx.step = fmt::format("clock round trips with the root rank {}", root);
    for (int i = 0; i < kRoundTrips; ++i) {
      connector.receive_until(root, ctx.deadline);
      const std::array<std::int64_t, 2> now{steady_ns(), wall_ns()};
      connector.send_until(root, std::as_bytes(std::span(now)), ctx.deadline);
    }
    return out;
  }
  nlohmann::json nodes = nlohmann::json::array();
  for (int leader : leaders) {
    nlohmann::json node = {{"rank", leader}, {"steady_offset_ns", 0}, {"wall_offset_ms", 0.0}, {"rtt_us", 0.0}};
    if (leader != root) {
      ctx.step = fmt::format("clock round trips with rank {}", leader);
      double best_rtt = std::numeric_limits<double>::infinity();
      for (int i = 0; i < kRoundTrips; ++i) {
        const std::int64_t s0 = steady_ns(), w0 = wall_ns();
        connector.send_until(leader, {}, ctx.deadline);
        const auto reply = connector.receive_until(leader, ctx.deadline);
        const std::int64_t s1 = steady_ns(), w1 = wall_ns();
        std::array<std::int64_t, 2> remote{};
        if (reply.size() != sizeof(remote)) throw failure("clock probe: a reply of the wrong size");
        std::memcpy(remote.data(), reply.data(), sizeof(remote));
        const double rtt = static_cast<double>(s1 - s0);
        if (rtt < best_rtt) {
          best_rtt = rtt;
          node["steady_offset_ns"] = remote[0] - (s0 + (s1 - s0) / 2);
          node["wall_offset_ms"] = static_cast<double>(remote[1] - (w0 + (w1 - w0) / 2)) / 1e6;
          node["rtt_us"] = rtt / 1e3;
        }
      }
    }
    nodes.push_back(node);
  }
  out["nodes"] = nodes;
  return out;
}

}  // namespace distbench::health
