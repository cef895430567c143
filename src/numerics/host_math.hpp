// DenseMath on the CPU over host memory: matrix products through OpenBLAS' sgemm on the threads a rank may use,
// the elementwise parts as plain loops, Adam through the ZeRO step's fused update. Every call runs before it
// returns; marks are the host clock.
#pragma once

#include "core/comm/world.hpp"
#include "core/device/dense_math.hpp"

#include <chrono>
#include <memory>
#include <string_view>
#include <vector>

namespace distbench::numerics {

class HostMath final : public DenseMath {
 public:
  // `threads`: OpenBLAS threads of this process (the host's cores over its ranks).
  explicit HostMath(int threads);

  std::string describe() const override;
  bool asynchronous() const override { return false; }
  void gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a,
            std::size_t lda, const float* b, std::size_t ldb, float beta, float* c, std::size_t ldc) override;
  void add_bias(float* z, const float* bias, std::size_t rows, std::size_t cols, bool relu) override;
  void column_sums(const float* m, std::size_t rows, std::size_t cols, float* out) override;
  void relu_backward(float* g, const float* a, std::size_t n) override;
  void softmax_cross_entropy(float* logits, const int* labels, std::size_t rows, std::size_t classes,
                             float* row_loss) override;
  void cross_entropy_backward(float* probs, const int* labels, std::size_t rows, std::size_t classes,
                              float scale) override;
  void sgd(float* params, const float* grads, float* velocity, std::size_t n, float lr, float momentum) override;
  void adam(const AdamStep& step, const float* grads, float* params, float* m, float* v, std::size_t n) override;
  void mixed_adam(const AdamStep& step, DType type, const void* grads, float* master, float* m, float* v, void* params,
                  std::size_t n) override;
  void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t row_bytes,
                 std::size_t rows) override;
  void to_bfloat16(const float* src, std::uint16_t* dst, std::size_t n) override;
  void from_bfloat16(const std::uint16_t* src, float* dst, std::size_t n) override;
  void upload(void* dst, const void* src, std::size_t bytes) override;
  void download(void* dst, const void* src, std::size_t bytes) override;
  void zero(void* dst, std::size_t bytes) override;
  void synchronize() override {}
  void reset_marks() override;
  std::size_t mark() override;
  std::vector<double> mark_seconds() override;

 private:
  int threads_;
  std::chrono::steady_clock::time_point origin_;
  std::vector<double> marks_;
};

// The cores one of a host's `ranks_per_host` ranks may use (at least 1).
int cpu_threads_per_rank(int ranks_per_host);

// Throws usage_error naming `benchmark` when the world's device can neither compute (no DenseMath of its own) nor is
// host memory (the mpi backend's), where the CPU computes.
void require_dense_math(World& world, std::string_view benchmark);

// The math a benchmark computes its model with: the device's own (a GPU's), else a HostMath on one rank's share of
// the host's cores, made into `cpu`, which must outlive the returned reference.
DenseMath& device_math(World& world, std::unique_ptr<HostMath>& cpu);

}  // namespace distbench::numerics
