// Reference bandwidths of one GPU, to read collective numbers against: host->device and device->host copies from
// and to pinned host memory, and a device->device copy, timed with CUDA events (the median of a few repetitions after
// one warm-up). Bandwidth is bytes copied per second, the convention of algbw: a 1-rank allreduce is a device copy,
// so its algbw compares with d2d (which moves each byte twice through memory: read and write).
#pragma once

#include "core/comm/backend.hpp"
#include "core/device/peer_copies.hpp"

#include <cstddef>

namespace distbench::nccl {

struct CopyBandwidth {
  std::size_t bytes = 0;
  double h2d = 0;  // bytes per second
  double d2h = 0;
  double d2d = 0;
};

inline constexpr std::size_t kCopyBytes = std::size_t{64} << 20;
inline constexpr int kCopyRepetitions = 5;

// Throws Error(failure) on CUDA errors. Uses at most a quarter of the device's free memory.
CopyBandwidth measure_copy_bandwidth(int device, std::size_t bytes = kCopyBytes, int repetitions = kCopyRepetitions);

// Every ordered pair of the GPUs this process sees: copies of `bytes` (at most a quarter of each GPU's free
// memory), peer to peer where the pair can (cudaDeviceEnablePeerAccess), through host memory otherwise; the median
// of `repetitions` after one warm-up. Skipped, with why, for fewer than two GPUs.
PeerCopies measure_peer_copies(std::size_t bytes = kCopyBytes, int repetitions = kCopyRepetitions);

// "copy.gpu<d>.h2d" -> "25.1 GB/s" ..., plus the size copied.
KeyValues copy_bandwidth_entries(int device, const CopyBandwidth& bandwidth);

}  // namespace distbench::nccl
