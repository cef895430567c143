// Whether a run's memory fits before it starts: what it allocates, what its communication library takes per call,
// and room left for everything else, so that the check refuses a run the kernel would OOM-kill half way (a run of
// 10 GiB of buffers with 11.6 GiB available per rank passed a check that ignored MPI's own buffers and died at 72 s).
// The room left is kept once per memory (a host's, a GPU's), not once per rank: 96 ranks on a 24 GiB host each see
// 239 MiB, and a reserve of 256 MiB taken from every one of them refused even a sweep of 8 bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace distbench {

class Device;

// a + b, or UINT64_MAX where the sum would wrap (a sweep of 2^63-byte buffers must not add up to 0).
std::uint64_t add_saturating(std::uint64_t a, std::uint64_t b);

// What one rank needs.
struct MemoryNeed {
  std::uint64_t buffers = 0;  // the benchmark's own allocations
  std::uint64_t library = 0;  // the communication library's temporary buffers, for the call that takes most
};

// One memory as one of the `sharing` processes that share it sees it: `available` bytes, its share of what the
// whole memory has available (Device::memory_available); 0: unknown.
struct MemoryShare {
  std::uint64_t available = 0;
  int sharing = 1;
};

// This process's share of its device's memory: memory_available and Device::memory_sharers for a host with
// `processes_on_host` ranks.
MemoryShare memory_share(const Device& device, int processes_on_host);

// Bytes left free for the system and the libraries' standing state, of a whole memory with `available` bytes
// available: 5 % of it, at least 256 MiB.
std::uint64_t memory_reserve(std::uint64_t available);
// One process's part of that reserve: the reserve of the whole memory (its share times the processes sharing it),
// divided among them, rounded up.
std::uint64_t memory_reserve_share(const MemoryShare& share);

// Why `need` does not fit in `share` (available 0: unknown, never refused), in words for an error line; nullopt when
// it fits with this process's part of the reserve to spare.
std::optional<std::string> memory_shortfall(const MemoryNeed& need, const MemoryShare& share);

}  // namespace distbench
