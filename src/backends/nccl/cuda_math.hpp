// DenseMath on one GPU: cuBLAS' sgemm and the kernels of math_kernels.cu, all queued in order on one stream of the
// math's own. Collectives are ordered after it by the communicator (order_before()), as PyTorch orders its NCCL
// stream after the current stream: a collective started after a gradient was queued sees that gradient, while the
// host runs ahead. cuBLAS is opened at the first matrix product (cublas_library.hpp).
#pragma once

#include "backends/nccl/cublas_library.hpp"
#include "core/device/dense_math.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

namespace distbench::nccl {

class CudaMath final : public DenseMath {
 public:
  explicit CudaMath(int device);
  ~CudaMath() override;
  CudaMath(const CudaMath&) = delete;
  CudaMath& operator=(const CudaMath&) = delete;

  int device() const { return device_; }
  // Makes `other` (a stream of the same GPU) wait for everything queued here so far; nothing when nothing was.
  void order_before(cudaStream_t other);

  std::string describe() const override;
  bool asynchronous() const override { return true; }
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
  void synchronize() override;
  void reset_marks() override;
  std::size_t mark() override;
  std::vector<double> mark_seconds() override;

 private:
  void launched(cudaError_t status, const char* what);
  cublasHandle_t blas();
  void release() noexcept;

  int device_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t order_ = nullptr;  // recorded by order_before()
  bool queued_ = false;          // something was queued (order_before() has work to wait for)
  std::shared_ptr<const CublasLibrary> cublas_;
  cublasHandle_t handle_ = nullptr;
  cudaEvent_t origin_ = nullptr;  // reset_marks()
  std::vector<cudaEvent_t> marks_;
  std::size_t used_marks_ = 0;
};

}  // namespace distbench::nccl
