#include "backends/nccl/copy_bandwidth.hpp"

#include "backends/nccl/cuda_check.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace distbench::nccl {
namespace {

// The memory, stream and events of one measurement, released however it ends.
struct Bench {
  void* host = nullptr;
  void* a = nullptr;
  void* b = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;

  Bench() = default;
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;
  ~Bench() {
    if (start != nullptr) cudaEventDestroy(start);
    if (stop != nullptr) cudaEventDestroy(stop);
    if (stream != nullptr) cudaStreamDestroy(stream);
    if (a != nullptr) cudaFree(a);
    if (b != nullptr) cudaFree(b);
    if (host != nullptr) cudaFreeHost(host);
  }

  // Median bytes per second of `repetitions` timed copies, after one untimed one.
  double time_copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, int repetitions) {
    check_cuda(cudaMemcpyAsync(dst, src, bytes, kind, stream), "cudaMemcpyAsync (warm-up)");
    std::vector<double> rates;
    for (int r = 0; r < repetitions; ++r) {
      check_cuda(cudaEventRecord(start, stream), "cudaEventRecord");
      check_cuda(cudaMemcpyAsync(dst, src, bytes, kind, stream), "cudaMemcpyAsync");
      check_cuda(cudaEventRecord(stop, stream), "cudaEventRecord");
      check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      rates.push_back(ms > 0 ? static_cast<double>(bytes) / (ms * 1e-3) : 0.0);
    }
    std::sort(rates.begin(), rates.end());
    return rates[rates.size() / 2];
  }
};

std::string gbps(double bytes_per_second) { return fmt::format("{:.1f} GB/s", bytes_per_second * 1e-9); }

}  // namespace

CopyBandwidth measure_copy_bandwidth(int device, std::size_t bytes, int repetitions) {
  DeviceGuard guard(device);
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  bytes = std::max<std::size_t>(1, std::min(bytes, free_bytes / 4));
  repetitions = std::max(1, repetitions);

  Bench bench;
  check_cuda(cudaMallocHost(&bench.host, bytes), "cudaMallocHost (copy bandwidth)");
  check_cuda(cudaMalloc(&bench.a, bytes), "cudaMalloc (copy bandwidth)");
  check_cuda(cudaMalloc(&bench.b, bytes), "cudaMalloc (copy bandwidth)");
  check_cuda(cudaStreamCreateWithFlags(&bench.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  check_cuda(cudaEventCreate(&bench.start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&bench.stop), "cudaEventCreate");
  check_cuda(cudaMemsetAsync(bench.a, 0, bytes, bench.stream), "cudaMemsetAsync");

  CopyBandwidth out;
  out.bytes = bytes;
  out.h2d = bench.time_copy(bench.a, bench.host, bytes, cudaMemcpyHostToDevice, repetitions);
  out.d2h = bench.time_copy(bench.host, bench.a, bytes, cudaMemcpyDeviceToHost, repetitions);
  out.d2d = bench.time_copy(bench.b, bench.a, bytes, cudaMemcpyDeviceToDevice, repetitions);
  return out;
}

PeerCopies measure_peer_copies(std::size_t bytes, int repetitions) {
  PeerCopies out;
  int count = 0;
  check_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
    out.gpus.push_back(fmt::format("{} ({})", d, prop.name));
  }
  if (count < 2) {
    out.skipped =
        fmt::format("{} GPU visible to this process (CUDA_VISIBLE_DEVICES='{}'): no pair to copy between", count,
                    std::getenv("CUDA_VISIBLE_DEVICES") != nullptr ? std::getenv("CUDA_VISIBLE_DEVICES") : "");
    return out;
  }
  // One buffer per GPU, sized for the GPU with the least free memory.
  for (int d = 0; d < count; ++d) {
    DeviceGuard guard(d);
    std::size_t free_bytes = 0, total_bytes = 0;
    check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    bytes = std::max<std::size_t>(1, std::min(bytes, free_bytes / 4));
  }
  std::vector<Bench> benches(static_cast<std::size_t>(count));
  for (int d = 0; d < count; ++d) {
    DeviceGuard guard(d);
    Bench& b = benches[static_cast<std::size_t>(d)];
    check_cuda(cudaMalloc(&b.a, bytes), "cudaMalloc (peer copies)");
    check_cuda(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    check_cuda(cudaEventCreate(&b.start), "cudaEventCreate");
    check_cuda(cudaEventCreate(&b.stop), "cudaEventCreate");
    check_cuda(cudaMemsetAsync(b.a, 0, bytes, b.stream), "cudaMemsetAsync");
    check_cuda(cudaStreamSynchronize(b.stream), "cudaStreamSynchronize");
  }
  const auto n = static_cast<std::size_t>(count);
  out.gbps.assign(n, std::vector<double>(n, 0.0));
  out.direct.assign(n, std::vector<bool>(n, false));
  for (int from = 0; from < count; ++from) {
    for (int to = 0; to < count; ++to) {
      if (from == to) continue;
      DeviceGuard guard(from);
      int can = 0;
      check_cuda(cudaDeviceCanAccessPeer(&can, from, to), "cudaDeviceCanAccessPeer");
      if (can != 0) {
        const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled) {
          (void)cudaGetLastError();  // clears the error it leaves
        } else {
          check_cuda(e, "cudaDeviceEnablePeerAccess");
        }
      }
      Bench& src = benches[static_cast<std::size_t>(from)];
      // cudaMemcpyDefault: unified addressing tells the copy where each pointer lives.
      out.gbps[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)] =
          src.time_copy(benches[static_cast<std::size_t>(to)].a, src.a, bytes, cudaMemcpyDefault, repetitions) / 1e9;
      out.direct[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)] = can != 0;
    }
  }
  return out;
}

KeyValues copy_bandwidth_entries(int device, const CopyBandwidth& bandwidth) {
  const std::string prefix = fmt::format("copy.gpu{}", device);
  return {{prefix + ".bytes", fmt::format("{}", bandwidth.bytes)},
          {prefix + ".h2d", gbps(bandwidth.h2d) + " (pinned host memory)"},
          {prefix + ".d2h", gbps(bandwidth.d2h) + " (pinned host memory)"},
          {prefix + ".d2d", gbps(bandwidth.d2d) + " (bytes copied; memory traffic is twice that)"}};
}

}  // namespace distbench::nccl
