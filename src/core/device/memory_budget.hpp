// Whether a run's memory fits before it starts: what it allocates, what its communication library takes per call,
// and room left for everything else, so that the check refuses a run the kernel would OOM-kill half way (a run of
// 10 GiB of buffers with 11.6 GiB available per rank passed a check that ignored MPI's own buffers and died at 72 s).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace distbench {

// a + b, or UINT64_MAX where the sum would wrap (a sweep of 2^63-byte buffers must not add up to 0).
std::uint64_t add_saturating(std::uint64_t a, std::uint64_t b);

// What one rank needs.
struct MemoryNeed {
  std::uint64_t buffers = 0;  // the benchmark's own allocations
  std::uint64_t library = 0;  // the communication library's temporary buffers, for the call that takes most
};

// Bytes left free for the system and the libraries' standing state: 5 % of what is available, at least 256 MiB.
std::uint64_t memory_reserve(std::uint64_t available);

// Why `need` does not fit in `available` bytes (0: unknown, never refused), in words for an error line; nullopt
// when it fits with the reserve to spare.
std::optional<std::string> memory_shortfall(const MemoryNeed& need, std::uint64_t available);

}  // namespace distbench
