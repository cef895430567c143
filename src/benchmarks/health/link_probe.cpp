// Phases 4 and 5: node-to-node bandwidth (both directions) and latency between the first ranks of two nodes.
#include "benchmarks/health/probes.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace distbench::health {
namespace {

constexpr int kLatencyWarmup = 5;
constexpr std::size_t kLatencyBytes = 8;

struct LinkBuffers {
  std::unique_ptr<Buffer> data;  // a window of messages
  std::unique_ptr<Buffer> ack;
};

// One window: `bytes`-sized messages in flight, then a 1-byte acknowledgement back. Seconds on this side.
double window(Communicator& comm, LinkBuffers& b, bool sending, int peer, const HealthPlan& plan, PhaseContext& ctx) {
  const std::size_t m = plan.link_message_bytes;
  const auto t0 = Clock::now();
  std::vector<std::unique_ptr<Work>> in_flight;
  for (int i = 0; i < plan.link_window; ++i) {
    const BufferRef at{b.data.get(), static_cast<std::size_t>(i) * m};
    in_flight.push_back(sending ? comm.start_send(at, m, peer) : comm.start_recv(at, m, peer));
  }
  for (auto& w : in_flight) wait_within(*w, ctx);
  const BufferRef ack{b.ack.get(), 0};
  wait_within(*(sending ? comm.start_recv(ack, 1, peer) : comm.start_send(ack, 1, peer)), ctx);
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// One direction: the sender times a warm-up window, decides how many windows fill plan.min_probe_seconds (at least
// plan.link_repetitions, at most 50) and tells the receiver; the best window's seconds on the sender (0 on the
// receiver).
double one_way(Connector& connector, Communicator& comm, LinkBuffers& b, bool sending, int peer, const HealthPlan& plan,
               PhaseContext& ctx) {
  const double warm = window(comm, b, sending, peer, plan, ctx);
  // The count goes over the connector (host memory): the data buffers may be on a GPU.
  std::int32_t windows = 0;
  if (sending) {
    windows = static_cast<std::int32_t>(std::clamp(std::ceil(plan.min_probe_seconds / std::max(warm, 1e-6)),
                                                   static_cast<double>(plan.link_repetitions), 50.0));
    connector.send_until(peer, std::as_bytes(std::span(&windows, 1)), ctx.deadline);
  } else {
    const auto got = connector.receive_until(peer, ctx.deadline);
    if (got.size() != sizeof(windows)) throw failure("link probe: a window count of the wrong size");
    std::memcpy(&windows, got.data(), sizeof(windows));
  }
  double best = 0;
  for (int i = 0; i < windows; ++i) {
    const double s = window(comm, b, sending, peer, plan, ctx);
    best = i == 0 ? s : std::min(best, s);
  }
  return sending ? best : 0.0;
}

// Median one-way latency in microseconds on the initiator (0 on the other side).
double ping_pong(Communicator& comm, LinkBuffers& b, bool initiator, int peer, const HealthPlan& plan,
                 PhaseContext& ctx) {
  const BufferRef at{b.ack.get(), 0};
  std::vector<double> rtts;
  for (int i = 0; i < kLatencyWarmup + plan.latency_round_trips; ++i) {
    const auto t0 = Clock::now();
    if (initiator) {
      wait_within(*comm.start_send(at, kLatencyBytes, peer), ctx);
      wait_within(*comm.start_recv(at, kLatencyBytes, peer), ctx);
    } else {
      wait_within(*comm.start_recv(at, kLatencyBytes, peer), ctx);
      wait_within(*comm.start_send(at, kLatencyBytes, peer), ctx);
    }
    if (i >= kLatencyWarmup) rtts.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  if (!initiator || rtts.empty()) return 0.0;
  std::nth_element(rtts.begin(), rtts.begin() + static_cast<std::ptrdiff_t>(rtts.size() / 2), rtts.end());
  return rtts[rtts.size() / 2] / 2 * 1e6;
}

}  // namespace

nlohmann::json probe_links(World& world, Communicator& world_comm, const std::vector<int>& leaders,
                           const std::vector<NodePair>& pairs, const HealthPlan& plan, PhaseContext& ctx,
                           double pass_gbps, int attempts) {
  nlohmann::json out = {{"links", nlohmann::json::array()}};
  const int me = world_comm.rank();
  const auto mine = std::find(leaders.begin(), leaders.end(), me);
  if (mine == leaders.end()) return out;
  const int my_node = static_cast<int>(mine - leaders.begin());
  LinkBuffers b{world.device().allocate(plan.link_message_bytes * static_cast<std::size_t>(plan.link_window)),
                world.device().allocate(kLatencyBytes)};
  const double window_bytes = static_cast<double>(plan.link_message_bytes) * plan.link_window;
  for (const auto& [a, c] : pairs) {
    if (a != my_node && c != my_node) continue;
    const int other = a == my_node ? c : a;
    const int peer = leaders[static_cast<std::size_t>(other)];
    // Both sides take the directions in the same order: first node to second, then back.
    for (const auto& [from, to] : {std::pair{a, c}, std::pair{c, a}}) {
      ctx.step = fmt::format("link bandwidth node {} -> node {} (ranks {} -> {})", from, to,
                             leaders[static_cast<std::size_t>(from)], leaders[static_cast<std::size_t>(to)]);
      // With a bound to pass (isolation), a direction that misses it is measured again, up to `attempts` times:
      // the sender decides and says so over the connector; the best attempt counts.
      const bool sending = from == my_node;
      double best_gbps = 0;
      int attempt = 0;
      for (bool again = true; again;) {
        ++attempt;
        const double s = one_way(world.connector(), world_comm, b, sending, peer, plan, ctx);
        std::uint8_t more = 0;
        if (sending) {
          best_gbps = std::max(best_gbps, window_bytes / s / 1e9);
          more = pass_gbps > 0 && best_gbps < pass_gbps && attempt < attempts ? 1 : 0;
          if (pass_gbps > 0) world.connector().send_until(peer, std::as_bytes(std::span(&more, 1)), ctx.deadline);
        } else if (pass_gbps > 0) {
          const auto got = world.connector().receive_until(peer, ctx.deadline);
          more = got.empty() ? 0 : static_cast<std::uint8_t>(got[0]);
        }
        again = more != 0;
      }
      if (sending) {
        out["links"].push_back({{"from", from}, {"to", to}, {"gbps", best_gbps}, {"attempts", attempt}});
      }
    }
    ctx.step = fmt::format("link latency node {} <-> node {}", a, c);
    const double us = ping_pong(world_comm, b, a == my_node, peer, plan, ctx);
    if (a == my_node) out["links"].push_back({{"from", a}, {"to", c}, {"latency_us", us}});
  }
  return out;
}

}  // namespace distbench::health
