// The ZeRO optimizer update against the machine's memory bandwidth, measured in the same run (issue 11's target:
// the fused Adam pass at >= 70 % of memcpy's bandwidth on CPU). Both are counted as bytes moved (read + written)
// per second, the best of several passes over buffers far larger than the caches.
//
//   build/bench/distbench-zero-update [elements, default 16M] [repetitions, default 10]
#include "core/device/half.hpp"
#include "numerics/adam.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double best_seconds(int repetitions, F&& f) {
  double best = 1e30;
  for (int i = 0; i < repetitions; ++i) {
    const auto t0 = Clock::now();
    f(i);
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace distbench;
  using namespace distbench::numerics;
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{16} << 20;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 10;
  if (n == 0 || reps <= 0) {
    fmt::print(stderr, "error: usage: distbench-zero-update [elements > 0] [repetitions > 0]\n");
    return 2;
  }
  std::vector<std::uint16_t> grad(n), param(n);
  std::vector<float> master(n, 1.0f), m(n, 0.0f), v(n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) grad[i] = distbench::float_to_bfloat16(static_cast<float>(i % 9) - 4.0f);
  AdamConfig config;
  const double update_s = best_seconds(reps, [&](int i) {
    adam_update(config, i + 1, distbench::DType::bfloat16, grad.data(), master.data(), m.data(), v.data(), param.data(),
                n);
  });
  config.threads = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  const double threaded_s = best_seconds(reps, [&](int i) {
    adam_update(config, i + 1, distbench::DType::bfloat16, grad.data(), master.data(), m.data(), v.data(), param.data(),
                n);
  });
  const double update_bytes = static_cast<double>(adam_bytes_moved(distbench::DType::bfloat16, n));

  // memcpy of the same footprint: copying B bytes moves 2B (read and write).
  const std::size_t copy_bytes = static_cast<std::size_t>(update_bytes / 2);
  std::vector<unsigned char> src(copy_bytes, 1), dst(copy_bytes, 0);
  const double copy_s = best_seconds(reps, [&](int i) {
    src[static_cast<std::size_t>(i)] = static_cast<unsigned char>(i);
    std::memcpy(dst.data(), src.data(), copy_bytes);
  });
  const double copy_bytes_moved = 2.0 * static_cast<double>(copy_bytes);
  // ... and on as many threads as the threaded update, each copying a contiguous run.
  const auto threads = static_cast<std::size_t>(config.threads);
  const double copy_threaded_s = best_seconds(reps, [&](int) {
    const std::size_t run = copy_bytes / threads;
    std::vector<std::jthread> workers;
    for (std::size_t t = 1; t < threads; ++t) {
      const std::size_t bytes = t + 1 == threads ? copy_bytes - t * run : run;
      workers.emplace_back([&, t, bytes] { std::memcpy(dst.data() + t * run, src.data() + t * run, bytes); });
    }
    std::memcpy(dst.data(), src.data(), threads == 1 ? copy_bytes : run);
  });

  const double update_gbps = update_bytes / update_s / 1e9, copy_gbps = copy_bytes_moved / copy_s / 1e9;
  const double threaded_gbps = update_bytes / threaded_s / 1e9;
  const double copy_threaded_gbps = copy_bytes_moved / copy_threaded_s / 1e9;
  fmt::print("elements            {}\n", n);
  fmt::print("adam update (bf16)  {:8.2f} GB/s moved  ({:.2f} ms, {:.0f} MB), 1 thread\n", update_gbps, update_s * 1e3,
             update_bytes / 1e6);
  fmt::print("adam update (bf16)  {:8.2f} GB/s moved  ({:.2f} ms), {} threads\n", threaded_gbps, threaded_s * 1e3,
             config.threads);
  fmt::print("memcpy              {:8.2f} GB/s moved  ({:.2f} ms, {:.0f} MB), 1 thread\n", copy_gbps, copy_s * 1e3,
             copy_bytes_moved / 1e6);
  fmt::print("memcpy              {:8.2f} GB/s moved  ({:.2f} ms), {} threads\n", copy_threaded_gbps,
             copy_threaded_s * 1e3, config.threads);
  fmt::print("ratio update/memcpy {:8.2f} (1 thread each), {:.2f} ({} threads each)   (target >= 0.70)\n",
             update_gbps / copy_gbps, threaded_gbps / copy_threaded_gbps, config.threads);
  return dst[0] == 255 ? 1 : 0;  // keeps the copies observable
}
