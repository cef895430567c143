// Dense fp32 math on a device, for the benchmarks that train a model (train; tp's layers; zero's update): a
// device's interface, which src/numerics implements for the CPU (host_math) and a GPU's backend for its device
// (backends/nccl/cuda_math): matrix products through the device's BLAS and the few elementwise kernels around them.
// Pointers are into the device's memory (data() of a buffer the Device allocated); matrices are row-major with
// explicit row strides.
//
// On an asynchronous device (a GPU) every call is queued, in order, on one queue of the device and returns at once:
// a collective started afterwards sees what was queued before it (the backend orders its communication after this
// queue), and the host sees results after synchronize() or download(). A host implementation runs each call before
// it returns.
#pragma once

#include "core/device/dtype.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace distbench {

// Adam's hyperparameters: what numerics/adam.hpp's AdamConfig (the update on the CPU, with its threads) and
// AdamStep (one step of it on a device) share.
struct AdamHyperparameters {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float grad_scale = 1.0f;  // the reduced gradients are sums over N ranks: 1/N makes them the mean
};

// One step of Adam: the arithmetic of the ZeRO step's fused update (numerics/adam.hpp), the bias corrections
// 1 - beta^step computed on the host in float (std::pow) on every device, so that devices agree.
struct AdamStep : AdamHyperparameters {
  int step = 1;  // 1-based
};

class DenseMath {
 public:
  virtual ~DenseMath() = default;

  virtual std::string describe() const = 0;  // "OpenBLAS, 2 threads", "cuBLAS 13.0 on GPU 0"
  // Calls are queued and return at once (see above).
  virtual bool asynchronous() const = 0;

  // C = alpha op(A) op(B) + beta C, with C m x n, op(A) m x k, op(B) k x n; op(X) = X^T when trans_x.
  virtual void gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
                    const float* a, std::size_t lda, const float* b, std::size_t ldb, float beta, float* c,
                    std::size_t ldc) = 0;
  // z[r][c] += bias[c] over rows x cols, then z = max(z, 0) when `relu`.
  virtual void add_bias(float* z, const float* bias, std::size_t rows, std::size_t cols, bool relu) = 0;
  // out[c] = sum over the rows of m[r][c].
  virtual void column_sums(const float* m, std::size_t rows, std::size_t cols, float* out) = 0;
  // g[i] = 0 where a[i] <= 0: ReLU's backward, `a` being the ReLU's output.
  virtual void relu_backward(float* g, const float* a, std::size_t n) = 0;
  // Each row of `logits` becomes its softmax; row_loss[r] = -log p[r][labels[r]].
  virtual void softmax_cross_entropy(float* logits, const int* labels, std::size_t rows, std::size_t classes,
                                     float* row_loss) = 0;
  // The probabilities softmax_cross_entropy left become d loss / d logits times `scale`: (p - onehot) * scale.
  virtual void cross_entropy_backward(float* probs, const int* labels, std::size_t rows, std::size_t classes,
                                      float scale) = 0;
  // SGD with momentum as PyTorch: v = momentum v + g; p -= lr v.
  virtual void sgd(float* params, const float* grads, float* velocity, std::size_t n, float lr, float momentum) = 0;
  // Adam over fp32 parameters that are their own master weights.
  virtual void adam(const AdamStep& step, const float* grads, float* params, float* m, float* v, std::size_t n) = 0;
  // Adam with fp32 master weights beside parameters of `type` (ZeRO's mixed-precision update, numerics/adam.hpp):
  // reads `type` gradients, updates master, m and v and writes the master weights rounded to `type` into `params`.
  // bfloat16, float16 or float32; for float32, `params` may be null (the master weights are the parameters).
  virtual void mixed_adam(const AdamStep& step, DType type, const void* grads, float* master, float* m, float* v,
                          void* params, std::size_t n) = 0;

  // `rows` rows of `row_bytes` bytes from `src` (rows `src_pitch` bytes apart) to `dst` (`dst_pitch` apart): a block of
  // a row-major matrix of any element type, e.g. one rank's columns.
  virtual void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                         std::size_t row_bytes, std::size_t rows) = 0;
  // fp32 to bfloat16 (round to nearest, ties to even, as core/device/half.hpp) and back.
  virtual void to_bfloat16(const float* src, std::uint16_t* dst, std::size_t n) = 0;
  virtual void from_bfloat16(const std::uint16_t* src, float* dst, std::size_t n) = 0;

  // Host memory to device memory and back; download() returns once the bytes are in `dst` (after everything queued).
  virtual void upload(void* dst, const void* src, std::size_t bytes) = 0;
  // `bytes` zero bytes at `dst` (device memory).
  virtual void zero(void* dst, std::size_t bytes) = 0;
  virtual void download(void* dst, const void* src, std::size_t bytes) = 0;
  virtual void synchronize() = 0;

  // Timestamps taken in the queue, for timelines: reset_marks() with the queue idle starts a timeline; mark()
  // returns the index of a timestamp taken once everything queued before it has run; mark_seconds(), after
  // synchronize(), gives every mark in seconds since the reset.
  virtual void reset_marks() = 0;
  virtual std::size_t mark() = 0;
  virtual std::vector<double> mark_seconds() = 0;
};

}  // namespace distbench
