#include "backends/nccl/math_kernels.hpp"

#include <algorithm>
#include <cstdint>

namespace distbench::nccl {
namespace {

constexpr int kThreads = 256;

unsigned grid_for(std::size_t n) {
  const std::size_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<std::size_t>(blocks, 1, 65535 * 16));
}

__global__ void add_bias_kernel(float* z, const float* bias, std::size_t rows, std::size_t cols, bool relu) {
  const std::size_t n = rows * cols;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float v = z[i] + bias[i % cols];
    z[i] = relu ? fmaxf(v, 0.0f) : v;
  }
}

// One thread per column: neighbouring threads read neighbouring elements of each row.
__global__ void column_sums_kernel(const float* m, std::size_t rows, std::size_t cols, float* out) {
  for (std::size_t c = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; c < cols;
       c += std::size_t{gridDim.x} * blockDim.x) {
    float sum = 0.0f;
    for (std::size_t r = 0; r < rows; ++r) sum += m[r * cols + c];
    out[c] = sum;
  }
}

__global__ void relu_backward_kernel(float* g, const float* a, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    if (a[i] <= 0.0f) g[i] = 0.0f;
  }
}

// One thread per row (a classifier's rows are short).
__global__ void softmax_cross_entropy_kernel(float* logits, const int* labels, std::size_t rows, std::size_t classes,
                                             float* row_loss) {
  for (std::size_t r = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; r < rows;
       r += std::size_t{gridDim.x} * blockDim.x) {
    float* p = logits + r * classes;
    float top = p[0];
    for (std::size_t c = 1; c < classes; ++c) top = fmaxf(top, p[c]);
    float sum = 0.0f;
    for (std::size_t c = 0; c < classes; ++c) sum += p[c] = expf(p[c] - top);
    for (std::size_t c = 0; c < classes; ++c) p[c] /= sum;
    row_loss[r] = -logf(fmaxf(p[labels[r]], 1e-30f));
  }
}

__global__ void cross_entropy_backward_kernel(float* probs, const int* labels, std::size_t rows, std::size_t classes,
                                              float scale) {
  const std::size_t n = rows * classes;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t r = i / classes, c = i % classes;
    const float hot = static_cast<std::size_t>(labels[r]) == c ? 1.0f : 0.0f;
    probs[i] = (probs[i] - hot) * scale;
  }
}

__global__ void sgd_kernel(float* params, const float* grads, float* velocity, std::size_t n, float lr,
                           float momentum) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float v = __fadd_rn(__fmul_rn(momentum, velocity[i]), grads[i]);
    velocity[i] = v;
    params[i] = __fsub_rn(params[i], __fmul_rn(lr, v));
  }
}

// The 16-bit formats as core/device/half.hpp converts them (to nearest, ties to even; NaN stays NaN), written for the
// device.
__device__ std::uint16_t bfloat16_bits(float f) {
  const std::uint32_t bits = __float_as_uint(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  return static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

__device__ std::uint16_t half_bits(float f) {
  const std::uint32_t bits = __float_as_uint(f);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (abs < 0x38800000u) {
    if (abs < 0x33000000u) return sign;
    const std::uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const int shift = 126 - static_cast<int>(abs >> 23);
    const std::uint32_t value = mantissa >> shift, rest = mantissa & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
    return static_cast<std::uint16_t>(sign |
                                      (value + ((rest > halfway || (rest == halfway && (value & 1u))) ? 1u : 0u)));
  }
  const std::uint32_t rebased = abs - 0x38000000u;
  const std::uint32_t value = rebased >> 13, rest = rebased & 0x1fffu;
  return static_cast<std::uint16_t>(sign | (value + ((rest > 0x1000u || (rest == 0x1000u && (value & 1u))) ? 1u : 0u)));
}

__device__ float half_value(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) return __uint_as_float(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) return (sign != 0 ? -1.0f : 1.0f) * static_cast<float>(mantissa) * 5.9604644775390625e-8f;
  return __uint_as_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

struct Bfloat16 {
  using Bits = std::uint16_t;
  __device__ static float load(Bits b) { return __uint_as_float(static_cast<std::uint32_t>(b) << 16); }
  __device__ static Bits store(float f) { return bfloat16_bits(f); }
};
struct Float16 {
  using Bits = std::uint16_t;
  __device__ static float load(Bits b) { return half_value(b); }
  __device__ static Bits store(float f) { return half_bits(f); }
};
struct Float32 {
  using Bits = float;
  __device__ static float load(Bits b) { return b; }
  __device__ static Bits store(float f) { return f; }
};

// One element of the update: every operation rounded on its own, in the host loop's order (zero/adam.cpp), so that
// no multiply-add is fused.
struct AdamOut {
  float m, v, w;
};
__device__ AdamOut adam_element(const AdamKernelArgs& a, float grad, float master, float m, float v) {
  const float one_b1 = 1.0f - a.beta1, one_b2 = 1.0f - a.beta2;
  const float g = __fmul_rn(grad, a.grad_scale);
  const float mi = __fadd_rn(__fmul_rn(a.beta1, m), __fmul_rn(one_b1, g));
  const float vi = __fadd_rn(__fmul_rn(a.beta2, v), __fmul_rn(one_b2, __fmul_rn(g, g)));
  const float denom = __fadd_rn(__fsqrt_rn(__fmul_rn(vi, a.inv_correction2)), a.eps);
  return {mi, vi, __fsub_rn(master, __fdiv_rn(__fmul_rn(a.step_size, mi), denom))};
}

template <typename T>
__global__ void adam_kernel(AdamKernelArgs a, const typename T::Bits* grads, float* master, float* m, float* v,
                            typename T::Bits* params, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const AdamOut o = adam_element(a, T::load(grads[i]), master[i], m[i], v[i]);
    m[i] = o.m;
    v[i] = o.v;
    master[i] = o.w;
    if (params != nullptr) params[i] = T::store(o.w);
  }
}

// Four consecutive elements per thread, read and written as whole vectors (16 bytes of fp32, 8 or 16 of parameters):
// the same arithmetic, fewer and wider memory operations. Every pointer must be aligned to its vector.
template <typename T>
struct alignas(4 * sizeof(typename T::Bits)) Four {
  typename T::Bits x[4];
};
template <typename T>
__global__ void adam_kernel4(AdamKernelArgs a, const Four<T>* grads, float4* master, float4* m, float4* v,
                             Four<T>* params, std::size_t groups) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < groups;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const Four<T> g = grads[i];
    const float4 w0 = master[i], m0 = m[i], v0 = v[i];
    const AdamOut o0 = adam_element(a, T::load(g.x[0]), w0.x, m0.x, v0.x);
    const AdamOut o1 = adam_element(a, T::load(g.x[1]), w0.y, m0.y, v0.y);
    const AdamOut o2 = adam_element(a, T::load(g.x[2]), w0.z, m0.z, v0.z);
    const AdamOut o3 = adam_element(a, T::load(g.x[3]), w0.w, m0.w, v0.w);
    m[i] = make_float4(o0.m, o1.m, o2.m, o3.m);
    v[i] = make_float4(o0.v, o1.v, o2.v, o3.v);
    master[i] = make_float4(o0.w, o1.w, o2.w, o3.w);
    if (params != nullptr) params[i] = Four<T>{{T::store(o0.w), T::store(o1.w), T::store(o2.w), T::store(o3.w)}};
  }
}

template <typename T>
bool aligned_to(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % sizeof(T) == 0;
}

// The update of n elements: the scalar kernel for a head that brings the fp32 arrays to a 16-byte boundary and for
// the tail, the vector kernel between, when every array then starts on its vector; else the scalar kernel throughout.
template <typename T>
cudaError_t launch_typed_adam(const AdamKernelArgs& args, const void* grads_v, float* master, float* m, float* v,
                              void* params_v, std::size_t n, cudaStream_t stream) {
  using Bits = typename T::Bits;
  const auto* grads = static_cast<const Bits*>(grads_v);
  auto* params = static_cast<Bits*>(params_v);
  const std::size_t head =
      std::min<std::size_t>(n, (16 - reinterpret_cast<std::uintptr_t>(master) % 16) % 16 / sizeof(float));
  const std::size_t groups = (n - head) / 4, body = head + groups * 4;
  const bool vectors = groups > 0 && reinterpret_cast<std::uintptr_t>(master) % sizeof(float) == 0 &&
                       aligned_to<float4>(master + head) && aligned_to<float4>(m + head) &&
                       aligned_to<float4>(v + head) && aligned_to<Four<T>>(grads + head) &&
                       (params == nullptr || aligned_to<Four<T>>(params + head));
  if (!vectors) {
    adam_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(args, grads, master, m, v, params, n);
    return cudaGetLastError();
  }
  if (head > 0) adam_kernel<T><<<1, kThreads, 0, stream>>>(args, grads, master, m, v, params, head);
  adam_kernel4<T><<<grid_for(groups), kThreads, 0, stream>>>(
      args, reinterpret_cast<const Four<T>*>(grads + head), reinterpret_cast<float4*>(master + head),
      reinterpret_cast<float4*>(m + head), reinterpret_cast<float4*>(v + head),
      params == nullptr ? nullptr : reinterpret_cast<Four<T>*>(params + head), groups);
  if (body < n) {
    adam_kernel<T><<<1, kThreads, 0, stream>>>(args, grads + body, master + body, m + body, v + body,
                                               params == nullptr ? nullptr : params + body, n - body);
  }
  return cudaGetLastError();
}

__global__ void to_bfloat16_kernel(const float* src, std::uint16_t* dst, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t bits = __float_as_uint(src[i]);
    if ((bits & 0x7fffffffu) > 0x7f800000u) {
      dst[i] = static_cast<std::uint16_t>((bits >> 16) | 0x40u);
    } else {
      dst[i] = static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
    }
  }
}

__global__ void from_bfloat16_kernel(const std::uint16_t* src, float* dst, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    dst[i] = __uint_as_float(static_cast<std::uint32_t>(src[i]) << 16);
  }
}

}  // namespace

cudaError_t launch_to_bfloat16(const float* src, std::uint16_t* dst, std::size_t n, cudaStream_t stream) {
  to_bfloat16_kernel<<<grid_for(n), kThreads, 0, stream>>>(src, dst, n);
  return cudaGetLastError();
}

cudaError_t launch_from_bfloat16(const std::uint16_t* src, float* dst, std::size_t n, cudaStream_t stream) {
  from_bfloat16_kernel<<<grid_for(n), kThreads, 0, stream>>>(src, dst, n);
  return cudaGetLastError();
}

cudaError_t launch_add_bias(float* z, const float* bias, std::size_t rows, std::size_t cols, bool relu,
                            cudaStream_t stream) {
  add_bias_kernel<<<grid_for(rows * cols), kThreads, 0, stream>>>(z, bias, rows, cols, relu);
  return cudaGetLastError();
}

cudaError_t launch_column_sums(const float* m, std::size_t rows, std::size_t cols, float* out, cudaStream_t stream) {
  column_sums_kernel<<<grid_for(cols), kThreads, 0, stream>>>(m, rows, cols, out);
  return cudaGetLastError();
}

cudaError_t launch_relu_backward(float* g, const float* a, std::size_t n, cudaStream_t stream) {
  relu_backward_kernel<<<grid_for(n), kThreads, 0, stream>>>(g, a, n);
  return cudaGetLastError();
}

cudaError_t launch_softmax_cross_entropy(float* logits, const int* labels, std::size_t rows, std::size_t classes,
                                         float* row_loss, cudaStream_t stream) {
  softmax_cross_entropy_kernel<<<grid_for(rows), kThreads, 0, stream>>>(logits, labels, rows, classes, row_loss);
  return cudaGetLastError();
}

cudaError_t launch_cross_entropy_backward(float* probs, const int* labels, std::size_t rows, std::size_t classes,
                                          float scale, cudaStream_t stream) {
  cross_entropy_backward_kernel<<<grid_for(rows * classes), kThreads, 0, stream>>>(probs, labels, rows, classes, scale);
  return cudaGetLastError();
}

cudaError_t launch_sgd(float* params, const float* grads, float* velocity, std::size_t n, float lr, float momentum,
                       cudaStream_t stream) {
  sgd_kernel<<<grid_for(n), kThreads, 0, stream>>>(params, grads, velocity, n, lr, momentum);
  return cudaGetLastError();
}

cudaError_t launch_adam(const AdamKernelArgs& args, ParamType type, const void* grads, float* master, float* m,
                        float* v, void* params, std::size_t n, cudaStream_t stream) {
  switch (type) {
    case ParamType::bfloat16: return launch_typed_adam<Bfloat16>(args, grads, master, m, v, params, n, stream);
    case ParamType::float16: return launch_typed_adam<Float16>(args, grads, master, m, v, params, n, stream);
    case ParamType::float32: break;
  }
  return launch_typed_adam<Float32>(args, grads, master, m, v, params, n, stream);
}

}  // namespace distbench::nccl
