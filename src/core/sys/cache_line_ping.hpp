// How far apart two CPUs are, as the time one cache line takes to go from one to the other: two processes (or
// threads) bounce a counter in one line of shared memory, each writing the next value once it sees its peer's.
// On a shared host this tells a run-wide mode apart that steal time does not show: two vCPUs on cores that share an
// L3 are several times closer than on cores that do not, and collectives run slower in the far placement
// (docs/measurements/2026-11-27-cpu-placement.md). Every wait is bounded by a deadline.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>

namespace distbench {

// One line of memory that only the two sides of a ping touch.
struct alignas(64) PingLine {
  std::atomic<std::uint64_t> value{0};
  char padding[64 - sizeof(std::atomic<std::uint64_t>)]{};
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "a ping line is shared between processes");

// The side that times: `rounds` round trips (at least 2; the first tenth untimed) on `line`, starting from `base` (a
// value neither side has written yet, even, the same on both sides; the next ping on the same line starts from base + 2
// * rounds). The mean one-way time in nanoseconds (half a round trip), or nullopt when the other side did not answer
// before `deadline`.
std::optional<double> lead_pings(PingLine& line, std::uint64_t base, int rounds,
                                 std::chrono::steady_clock::time_point deadline);
// The side that answers the same pings; false when the leader did not go on before `deadline`.
bool follow_pings(PingLine& line, std::uint64_t base, int rounds, std::chrono::steady_clock::time_point deadline);

}  // namespace distbench
