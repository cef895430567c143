// What the operating system counts for this process and its host, read around a measurement: resident memory (now
// and at peak, the peak resettable) and the bytes the host's network interfaces moved. Linux' /proc; a figure the
// system does not give is std::nullopt, never a guess.
#pragma once

#include <cstdint>
#include <optional>

namespace distbench::zero {

// Bytes of this process's memory in RAM now (VmRSS), and the most since the peak was last reset (VmHWM).
std::optional<std::uint64_t> resident_bytes();
std::optional<std::uint64_t> peak_resident_bytes();
// Returns the heap's free memory to the system (glibc's malloc_trim), then starts a new peak at the current resident
// size (writes 5 to /proc/self/clear_refs); false when the peak cannot be reset.
bool reset_peak_resident();

// Bytes received and sent by every network interface of this process's network namespace but loopback, since boot
// (/proc/net/dev). Traffic between ranks on one host (shared memory, loopback) is not in them; every process on the
// host, and every protocol header, is.
struct NetworkBytes {
  std::uint64_t received = 0, sent = 0;
};
std::optional<NetworkBytes> network_bytes();

}  // namespace distbench::zero
