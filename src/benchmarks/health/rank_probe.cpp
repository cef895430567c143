// Phase 1 on every rank: memory, compute and copy bandwidth of this rank's device.
#include "benchmarks/health/probes.hpp"

#include "core/device/pattern.hpp"
#include "core/error.hpp"
#include "core/sys/gpu_readings.hpp"
#include "core/sys/nvml_library.hpp"

#include <algorithm>
#include <chrono>
#include <new>
#include <variant>

namespace distbench::health {
namespace {

// The best of copies between the two halves of `at` (bytes copied per second, in GB/s): at least
// plan.copy_repetitions after one warm-up, and for at least plan.min_probe_seconds, so that the best is taken over
// longer than a hiccup of a shared machine.
double copy_gbps(Device& device, BufferRef at, std::size_t copy, const HealthPlan& plan, PhaseContext& ctx) {
  ctx.step = "copy bandwidth";
  auto timer = device.make_timer();
  double best = 0;
  const auto began = Clock::now();
  auto enough = [&](int i) {
    return i > plan.copy_repetitions &&
           std::chrono::duration<double>(Clock::now() - began).count() >= plan.min_probe_seconds;
  };
  for (int i = 0; !enough(i); ++i) {
    timer->start();
    device.copy(at.at(copy), at, copy);
    device.synchronize();
    timer->stop();
    if (i > 0) best = best == 0 ? timer->seconds() : std::min(best, timer->seconds());
    if (ctx.seconds_left() < 0) throw Error(ExitCode::timeout, "copies outlived the phase");
  }
  return best > 0 ? static_cast<double>(copy) / best / 1e9 : 0.0;
}

// Host <-> device bandwidths where the device is not host memory ("h2d_gbps", "d2h_gbps").
void transfers(Device& device, nlohmann::json& out, PhaseContext& ctx) {
  ctx.step = "host-device transfer bandwidth";
  for (const auto& [key, gbps] : device.host_transfer_gbps()) out[key + "_gbps"] = gbps;
}

// NVML's reading of this rank's GPU (found by its PCI bus id) at this moment, or why there is none.
nlohmann::json loaded_state(const Device& device, const HealthPlan& plan) {
  auto opened = NvmlLibrary::open(plan.nvml_library);
  if (const auto* why = std::get_if<std::string>(&opened)) return {{"unavailable", *why}};
  return read_loaded_state(*std::get<std::unique_ptr<NvmlLibrary>>(opened), device.pci_bus_id());
}

// The SGEMM rate of this rank's GPU (TFLOP/s, 2 n^3 per product, timed in the device's queue), the best of at least
// 3 products and plan.min_probe_seconds after one warm-up; "gemm_skipped" says why when the device has no math queue
// of its own (host memory) or cuBLAS cannot be opened.
void gemm_rate(Device& device, const HealthPlan& plan, nlohmann::json& out, PhaseContext& ctx) {
  DenseMath* math = device.math();
  if (math == nullptr || device.host_memory()) {
    out["gemm_skipped"] = "host memory: the GEMM rate is measured on GPUs";
    return;
  }
  ctx.step = "GEMM rate";
  const std::size_t n = plan.gemm_size;
  const std::size_t bytes = n * n * sizeof(float);
  try {
    auto a = device.allocate(bytes), b = device.allocate(bytes), c = device.allocate(bytes);
    auto* pa = static_cast<float*>(a->data());
    auto* pb = static_cast<float*>(b->data());
    auto* pc = static_cast<float*>(c->data());
    math->zero(pa, bytes);
    math->zero(pb, bytes);
    math->gemm(false, false, n, n, n, 1.0f, pa, n, pb, n, 0.0f, pc, n);  // warm-up: cuBLAS picks its kernel
    math->synchronize();
    double best = 0;
    const auto began = Clock::now();
    for (int i = 0; i < 3 || std::chrono::duration<double>(Clock::now() - began).count() < plan.min_probe_seconds;
         ++i) {
      math->reset_marks();
      const std::size_t m0 = math->mark();
      math->gemm(false, false, n, n, n, 1.0f, pa, n, pb, n, 0.0f, pc, n);
      const std::size_t m1 = math->mark();
      math->synchronize();
      const auto marks = math->mark_seconds();
      const double s = marks[m1] - marks[m0];
      if (s > 0 && (best == 0 || s < best)) best = s;
      if (ctx.seconds_left() < 0) throw Error(ExitCode::timeout, "GEMMs outlived the phase");
      if (i > 1000) break;
    }
    out["gemm_n"] = n;
    out["gemm_tflops"] = best > 0 ? 2.0 * static_cast<double>(n) * n * n / best / 1e12 : 0.0;
    // The GPU's state under load: about 0.2 s of products queued, NVML read while they run.
    ctx.step = "reading NVML under load";
    const int queued = best > 0 ? static_cast<int>(std::clamp(0.2 / best, 1.0, 500.0)) : 1;
    for (int i = 0; i < queued; ++i) math->gemm(false, false, n, n, n, 1.0f, pa, n, pb, n, 0.0f, pc, n);
    out["loaded"] = loaded_state(device, plan);
    math->synchronize();
  } catch (const Error& e) {
    if (e.code() == ExitCode::timeout) throw;
    out["gemm_skipped"] = e.what();
  }
}

// The copy the bandwidth probe times on this device: the plan's, or on a GPU the larger GPU copy, within
// --memory-bytes (the screening and a suspect's re-test time the same copy).
std::size_t copy_bytes_of(const Device& device, const HealthPlan& plan) {
  if (device.host_memory()) return plan.copy_bytes;
  return std::max(plan.copy_bytes, std::min(plan.gpu_copy_bytes, plan.memory_bytes / 2));
}

}  // namespace

nlohmann::json probe_copy(World& world, const HealthPlan& plan, PhaseContext& ctx) {
  const std::size_t copy = copy_bytes_of(world.device(), plan);
  auto buffer = world.device().allocate(2 * copy);
  nlohmann::json out = {{"copy_gbps", copy_gbps(world.device(), {buffer.get(), 0}, copy, plan, ctx)}};
  transfers(world.device(), out, ctx);
  return out;
}

nlohmann::json probe_rank(World& world, const HealthPlan& plan, PhaseContext& ctx) {
  Device& device = world.device();
  Connector& connector = world.connector();
  nlohmann::json out = nlohmann::json::object();
  out["device"] = device.describe();

  // Allocate and touch: every page written by the fill, read back by the check.
  ctx.step = "allocating memory";
  const std::uint64_t available = device.memory_available(connector.local_size());
  std::size_t bytes = std::min<std::uint64_t>(plan.memory_bytes, available / 4);
  bytes -= bytes % 4096;
  bytes = std::max<std::size_t>(bytes, 2 * copy_bytes_of(device, plan));
  out["memory_bytes"] = bytes;
  std::unique_ptr<Buffer> buffer;
  try {
    buffer = device.allocate(bytes);
  } catch (const std::bad_alloc&) {
    throw Error(ExitCode::failure, fmt::format("cannot allocate {} bytes", bytes));
  }
  ctx.step = "touching memory";
  const std::size_t count = bytes / size_of(DType::float32);
  // The identity of a broadcast from this rank: every element must read back as written.
  const PatternParams pattern = make_pattern(Collective::broadcast, ReduceOp::sum, DType::float32, 1);
  const BufferRef all{buffer.get(), 0};
  device.fill(all, count, DType::float32, FillSpec{pattern, 0});
  device.synchronize();
  ctx.step = "verifying memory";
  out["wrong"] =
      device.count_wrong(all, DType::float32, CheckSpec{pattern, ReduceOp::sum, Collective::broadcast, count, 0, 0});

  out["copy_gbps"] = copy_gbps(device, all, std::min(copy_bytes_of(device, plan), bytes / 2), plan, ctx);
  buffer.reset();  // the transfer probe allocates its own
  transfers(device, out, ctx);
  if (const std::string model = device.model_name(); !model.empty()) {
    out["model"] = model;
    out["processes_per_gpu"] = device.memory_sharers(connector.local_size());
  }
  gemm_rate(device, plan, out, ctx);
  return out;
}

}  // namespace distbench::health
