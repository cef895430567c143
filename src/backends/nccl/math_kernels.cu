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

// Every operation rounded on its own, in the host loop's order (zero/adam.cpp), so that no multiply-add is fused.
__global__ void adam_kernel(const float* grads, float* params, float* m, float* v, std::size_t n, float b1, float b2,
                            float eps, float scale, float step_size, float inv_bc2) {
  const float one_b1 = 1.0f - b1, one_b2 = 1.0f - b2;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float g = __fmul_rn(grads[i], scale);
    const float mi = __fadd_rn(__fmul_rn(b1, m[i]), __fmul_rn(one_b1, g));
    const float vi = __fadd_rn(__fmul_rn(b2, v[i]), __fmul_rn(one_b2, __fmul_rn(g, g)));
    const float denom = __fadd_rn(__fsqrt_rn(__fmul_rn(vi, inv_bc2)), eps);
    params[i] = __fsub_rn(params[i], __fdiv_rn(__fmul_rn(step_size, mi), denom));
    m[i] = mi;
    v[i] = vi;
  }
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

cudaError_t launch_adam(const float* grads, float* params, float* m, float* v, std::size_t n, float beta1, float beta2,
                        float eps, float grad_scale, float step_size, float inv_correction2, cudaStream_t stream) {
  adam_kernel<<<grid_for(n), kThreads, 0, stream>>>(grads, params, m, v, n, beta1, beta2, eps, grad_scale, step_size,
                                                    inv_correction2);
  return cudaGetLastError();
}

}  // namespace distbench::nccl
