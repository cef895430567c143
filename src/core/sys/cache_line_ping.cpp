#include "core/sys/cache_line_ping.hpp"

#include <thread>

namespace distbench {
namespace {

// Spins until `line` holds `want`; false once `deadline` has passed. Every 1024 spins it reads the clock and yields
// the CPU (so that two sides that share one CPU still go on, each turn a context switch: what such ranks pay too);
// between those, nothing slows the spin down.
bool wait_for(const PingLine& line, std::uint64_t want, std::chrono::steady_clock::time_point deadline) {
  for (unsigned spins = 1;; ++spins) {
    if (line.value.load(std::memory_order_acquire) == want) return true;
    if (spins % 1024 == 0) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::yield();
    }
  }
}

}  // namespace

std::optional<double> lead_pings(PingLine& line, std::uint64_t base, int rounds,
                                 std::chrono::steady_clock::time_point deadline) {
  if (rounds < 2) return std::nullopt;
  // The first tenth of the round trips is untimed: the first waits for the other side to arrive at all.
  const int untimed = rounds / 10 + 1;
  std::chrono::steady_clock::time_point began;
  for (int i = 0; i < rounds; ++i) {
    if (i == untimed) began = std::chrono::steady_clock::now();
    const std::uint64_t ping = base + 2 * static_cast<std::uint64_t>(i) + 1;
    line.value.store(ping, std::memory_order_release);
    if (!wait_for(line, ping + 1, deadline)) return std::nullopt;
  }
  const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - began;
  return took.count() / (2.0 * (rounds - untimed));
}

bool follow_pings(PingLine& line, std::uint64_t base, int rounds, std::chrono::steady_clock::time_point deadline) {
  for (int i = 0; i < rounds; ++i) {
    const std::uint64_t ping = base + 2 * static_cast<std::uint64_t>(i) + 1;
    if (!wait_for(line, ping, deadline)) return false;
    line.value.store(ping + 1, std::memory_order_release);
  }
  return true;
}

}  // namespace distbench
