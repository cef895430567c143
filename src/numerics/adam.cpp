#include "numerics/adam.hpp"

#include "core/device/half.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <thread>
#include <vector>

namespace distbench::numerics {
namespace {

// The fused pass for one parameter type: a plain loop over restrict pointers that the compiler vectorises; the
// arithmetic is written once, so that every stage and rank count runs exactly these operations.
// Always inlined, so that each clone of update_run compiles it for its own instruction set.
template <typename Load, typename Store>
[[gnu::always_inline]] inline void update(const AdamConfig& c, float bc1, float bc2, Load load_grad,
                                          float* __restrict master, float* __restrict m, float* __restrict v,
                                          Store store_param, std::size_t n) {
  const float b1 = c.beta1, b2 = c.beta2, one_b1 = 1.0f - c.beta1, one_b2 = 1.0f - c.beta2;
  const float step_size = c.lr / bc1, inv_bc2 = 1.0f / bc2, eps = c.eps, scale = c.grad_scale;
  for (std::size_t i = 0; i < n; ++i) {
    const float g = load_grad(i) * scale;
    const float mi = b1 * m[i] + one_b1 * g;
    const float vi = b2 * v[i] + one_b2 * (g * g);
    const float w = master[i] - step_size * mi / (std::sqrt(vi * inv_bc2) + eps);
    m[i] = mi;
    v[i] = vi;
    master[i] = w;
    store_param(i, w);
  }
}

constexpr std::size_t kElementsPerThread = std::size_t{1} << 18;  // below this a thread costs more than it saves
constexpr std::size_t kAlign = 64;                                // runs start on whole vectors and cache lines

// One contiguous run on the calling thread; on x86-64 in an SSE2 and an AVX2 build, chosen at load time (meson.build).
DISTBENCH_UPDATE_CLONES void update_run(const AdamConfig& config, int step, DType type, const void* grad, float* master,
                                        float* m, float* v, void* param, std::size_t n) {
  const float bc1 = 1.0f - std::pow(config.beta1, static_cast<float>(step));
  const float bc2 = 1.0f - std::pow(config.beta2, static_cast<float>(step));
  switch (type) {
    case DType::bfloat16: {
      const auto* __restrict g = static_cast<const std::uint16_t*>(grad);
      auto* __restrict p = static_cast<std::uint16_t*>(param);
      update(
          config, bc1, bc2, [g](std::size_t i) { return bfloat16_to_float(g[i]); }, master, m, v,
          [p](std::size_t i, float w) { p[i] = float_to_bfloat16(w); }, n);
      return;
    }
    case DType::float16: {
      const auto* __restrict g = static_cast<const std::uint16_t*>(grad);
      auto* __restrict p = static_cast<std::uint16_t*>(param);
      update(
          config, bc1, bc2, [g](std::size_t i) { return half_to_float(g[i]); }, master, m, v,
          [p](std::size_t i, float w) { p[i] = float_to_half(w); }, n);
      return;
    }
    default: {  // float32: adam_update admits nothing else
      const auto* __restrict g = static_cast<const float*>(grad);
      if (param == nullptr) {  // the master weights are the parameters
        update(
            config, bc1, bc2, [g](std::size_t i) { return g[i]; }, master, m, v, [](std::size_t, float) {}, n);
        return;
      }
      auto* __restrict p = static_cast<float*>(param);
      update(
          config, bc1, bc2, [g](std::size_t i) { return g[i]; }, master, m, v,
          [p](std::size_t i, float w) { p[i] = w; }, n);
      return;
    }
  }
}

}  // namespace

void adam_update(const AdamConfig& config, int step, DType type, const void* grad, float* master, float* m, float* v,
                 void* param, std::size_t n) {
  if (type != DType::bfloat16 && type != DType::float16 && type != DType::float32) {
    throw usage_error(fmt::format("the ZeRO update takes bfloat16, float16 or float32 parameters, not {}", name(type)));
  }
  if (param == nullptr && type != DType::float32) {
    throw usage_error("the ZeRO update writes 16-bit parameters to their own buffer: param must not be null");
  }
  const std::size_t threads =
      std::min<std::size_t>(static_cast<std::size_t>(std::max(config.threads, 1)), n / kElementsPerThread + 1);
  if (threads <= 1) {
    update_run(config, step, type, grad, master, m, v, param, n);
    return;
  }
  const std::size_t run = (n / threads + kAlign - 1) / kAlign * kAlign;
  const std::size_t g = size_of(type);
  std::vector<std::jthread> workers;
  for (std::size_t t = 1; t < threads && t * run < n; ++t) {
    const std::size_t at = t * run, k = std::min(run, n - at);
    workers.emplace_back([=] {
      update_run(config, step, type, static_cast<const std::byte*>(grad) + at * g, master + at, m + at, v + at,
                 param == nullptr ? nullptr : static_cast<std::byte*>(param) + at * g, k);
    });
  }
  update_run(config, step, type, grad, master, m, v, param, std::min(run, n));
}

std::uint64_t adam_bytes_moved(DType type, std::size_t n, bool separate_params) {
  // read: grad, master, m, v; write: master, m, v, and the parameters when they are not the master weights
  return static_cast<std::uint64_t>(n) * ((separate_params ? 2 : 1) * size_of(type) + 6 * sizeof(float));
}

}  // namespace distbench::numerics
