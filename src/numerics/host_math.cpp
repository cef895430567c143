#include "numerics/host_math.hpp"

#include "core/device/half.hpp"
#include "core/error.hpp"
#include "numerics/adam.hpp"

#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

namespace distbench::numerics {

HostMath::HostMath(int threads) : threads_(std::max(1, threads)) {
  openblas_set_num_threads(threads_);
  reset_marks();
}

std::string HostMath::describe() const { return fmt::format("OpenBLAS on the CPU, {} threads", threads_); }

void HostMath::gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
                    const float* a, std::size_t lda, const float* b, std::size_t ldb, float beta, float* c,
                    std::size_t ldc) {
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b,
              static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

void HostMath::add_bias(float* z, const float* bias, std::size_t rows, std::size_t cols, bool relu) {
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = z + r * cols;
    for (std::size_t c = 0; c < cols; ++c) row[c] += bias[c];
    if (relu) {
      for (std::size_t c = 0; c < cols; ++c) row[c] = std::max(row[c], 0.0f);
    }
  }
}

void HostMath::column_sums(const float* m, std::size_t rows, std::size_t cols, float* out) {
  std::fill(out, out + cols, 0.0f);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) out[c] += m[r * cols + c];
  }
}

void HostMath::relu_backward(float* g, const float* a, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] <= 0.0f) g[i] = 0.0f;
  }
}

void HostMath::softmax_cross_entropy(float* logits, const int* labels, std::size_t rows, std::size_t classes,
                                     float* row_loss) {
  for (std::size_t r = 0; r < rows; ++r) {
    float* p = logits + r * classes;
    const float top = *std::max_element(p, p + classes);
    float sum = 0;
    for (std::size_t c = 0; c < classes; ++c) sum += p[c] = std::exp(p[c] - top);
    for (std::size_t c = 0; c < classes; ++c) p[c] /= sum;
    row_loss[r] = -std::log(std::max(p[static_cast<std::size_t>(labels[r])], 1e-30f));
  }
}

void HostMath::cross_entropy_backward(float* probs, const int* labels, std::size_t rows, std::size_t classes,
                                      float scale) {
  for (std::size_t r = 0; r < rows; ++r) probs[r * classes + static_cast<std::size_t>(labels[r])] -= 1.0f;
  for (std::size_t i = 0; i < rows * classes; ++i) probs[i] *= scale;
}

void HostMath::sgd(float* params, const float* grads, float* velocity, std::size_t n, float lr, float momentum) {
  for (std::size_t i = 0; i < n; ++i) {
    velocity[i] = momentum * velocity[i] + grads[i];
    params[i] -= lr * velocity[i];
  }
}

void HostMath::adam(const AdamStep& step, const float* grads, float* params, float* m, float* v, std::size_t n) {
  mixed_adam(step, DType::float32, grads, params, m, v, nullptr, n);
}

void HostMath::mixed_adam(const AdamStep& step, DType type, const void* grads, float* master, float* m, float* v,
                          void* params, std::size_t n) {
  const AdamConfig config{step, threads_};
  adam_update(config, step.step, type, grads, master, m, v, params, n);
}

void HostMath::copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                         std::size_t row_bytes, std::size_t rows) {
  for (std::size_t r = 0; r < rows; ++r) {
    std::memcpy(static_cast<std::byte*>(dst) + r * dst_pitch, static_cast<const std::byte*>(src) + r * src_pitch,
                row_bytes);
  }
}

void HostMath::to_bfloat16(const float* src, std::uint16_t* dst, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = float_to_bfloat16(src[i]);
}

void HostMath::from_bfloat16(const std::uint16_t* src, float* dst, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = bfloat16_to_float(src[i]);
}

void HostMath::upload(void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
void HostMath::download(void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
void HostMath::zero(void* dst, std::size_t bytes) { std::memset(dst, 0, bytes); }

void HostMath::reset_marks() {
  marks_.clear();
  origin_ = std::chrono::steady_clock::now();
}

std::size_t HostMath::mark() {
  marks_.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - origin_).count());
  return marks_.size() - 1;
}

std::vector<double> HostMath::mark_seconds() { return marks_; }

int cpu_threads_per_rank(int ranks_per_host) {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / std::max(1, ranks_per_host));
}

void require_dense_math(World& world, std::string_view benchmark) {
  if (world.device().host_memory() || world.device().math() != nullptr) return;
  throw usage_error(
      fmt::format("{} needs a device it can compute on; the {} backend has none: run with --backend mpi "
                  "(CPU) or nccl (GPU)",
                  benchmark, world.backend().name()));
}

DenseMath& device_math(World& world, std::unique_ptr<HostMath>& cpu) {
  if (DenseMath* own = world.device().math()) return *own;
  cpu = std::make_unique<HostMath>(cpu_threads_per_rank(world.connector().local_size()));
  return *cpu;
}

}  // namespace distbench::numerics
