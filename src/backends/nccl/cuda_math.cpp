#include "backends/nccl/cuda_math.hpp"

#include "backends/nccl/cuda_check.hpp"
#include "backends/nccl/math_kernels.hpp"
#include "core/error.hpp"

#include <fmt/format.h>

#include <cmath>

namespace distbench::nccl {

CudaMath::CudaMath(int device) : device_(device) {
  DeviceGuard on(device_);
  try {
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags (math)");
    check_cuda(cudaEventCreateWithFlags(&order_, cudaEventDisableTiming), "cudaEventCreate (math order)");
    check_cuda(cudaEventCreate(&origin_), "cudaEventCreate (math marks)");
  } catch (...) {
    release();
    throw;
  }
}

CudaMath::~CudaMath() { release(); }

void CudaMath::release() noexcept {
  DeviceGuard on(device_);
  if (handle_ != nullptr) cublas_->destroy(handle_);
  for (cudaEvent_t e : marks_) cudaEventDestroy(e);
  if (origin_ != nullptr) cudaEventDestroy(origin_);
  if (order_ != nullptr) cudaEventDestroy(order_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void CudaMath::order_before(cudaStream_t other) {
  if (!queued_) return;
  check_cuda(cudaEventRecord(order_, stream_), "cudaEventRecord (ordering a collective after the math)");
  check_cuda(cudaStreamWaitEvent(other, order_, 0), "cudaStreamWaitEvent (ordering a collective after the math)");
}

std::string CudaMath::describe() const {
  if (cublas_ == nullptr) return fmt::format("cuBLAS and kernels on GPU {}", device_);
  int version = 0;
  if (handle_ != nullptr) cublas_->get_version(handle_, &version);
  return fmt::format("cuBLAS {}.{} ({}) and kernels on GPU {}", version / 10000, version / 100 % 100, cublas_->path,
                     device_);
}

void CudaMath::launched(cudaError_t status, const char* what) {
  queued_ = true;
  if (status != cudaSuccess) check_cuda(status, what);
}

cublasHandle_t CudaMath::blas() {
  if (handle_ == nullptr) {
    if (cublas_ == nullptr) cublas_ = CublasLibrary::open();
    DeviceGuard on(device_);
    cublasHandle_t handle = nullptr;
    if (const cublasStatus_t s = cublas_->create(&handle); s != CUBLAS_STATUS_SUCCESS) {
      throw Error(ExitCode::failure, fmt::format("cublasCreate on GPU {} failed: {}", device_, cublas_status_text(s)));
    }
    handle_ = handle;
    if (const cublasStatus_t s = cublas_->set_stream(handle_, stream_); s != CUBLAS_STATUS_SUCCESS) {
      throw Error(ExitCode::failure, fmt::format("cublasSetStream failed: {}", cublas_status_text(s)));
    }
  }
  return handle_;
}

void CudaMath::gemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
                    const float* a, std::size_t lda, const float* b, std::size_t ldb, float beta, float* c,
                    std::size_t ldc) {
  // cuBLAS is column-major: a row-major matrix is its transpose there, so C^T = op(B)^T op(A)^T is computed.
  const cublasHandle_t h = blas();
  const cublasStatus_t s =
      cublas_->sgemm(h, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n),
                     static_cast<int>(m), static_cast<int>(k), &alpha, b, static_cast<int>(ldb), a,
                     static_cast<int>(lda), &beta, c, static_cast<int>(ldc));
  queued_ = true;
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw Error(ExitCode::failure,
                fmt::format("cublasSgemm ({} x {} x {}) failed: {}", m, n, k, cublas_status_text(s)));
  }
}

void CudaMath::add_bias(float* z, const float* bias, std::size_t rows, std::size_t cols, bool relu) {
  launched(launch_add_bias(z, bias, rows, cols, relu, stream_), "the bias kernel");
}

void CudaMath::column_sums(const float* m, std::size_t rows, std::size_t cols, float* out) {
  launched(launch_column_sums(m, rows, cols, out, stream_), "the column-sum kernel");
}

void CudaMath::relu_backward(float* g, const float* a, std::size_t n) {
  launched(launch_relu_backward(g, a, n, stream_), "the ReLU backward kernel");
}

void CudaMath::softmax_cross_entropy(float* logits, const int* labels, std::size_t rows, std::size_t classes,
                                     float* row_loss) {
  launched(launch_softmax_cross_entropy(logits, labels, rows, classes, row_loss, stream_), "the softmax kernel");
}

void CudaMath::cross_entropy_backward(float* probs, const int* labels, std::size_t rows, std::size_t classes,
                                      float scale) {
  launched(launch_cross_entropy_backward(probs, labels, rows, classes, scale, stream_),
           "the cross-entropy backward kernel");
}

void CudaMath::sgd(float* params, const float* grads, float* velocity, std::size_t n, float lr, float momentum) {
  launched(launch_sgd(params, grads, velocity, n, lr, momentum, stream_), "the SGD kernel");
}

void CudaMath::adam(const AdamStep& step, const float* grads, float* params, float* m, float* v, std::size_t n) {
  mixed_adam(step, DType::float32, grads, params, m, v, nullptr, n);
}

void CudaMath::mixed_adam(const AdamStep& step, DType type, const void* grads, float* master, float* m, float* v,
                          void* params, std::size_t n) {
  if (type != DType::bfloat16 && type != DType::float16 && type != DType::float32) {
    throw usage_error(fmt::format("the Adam kernel takes bfloat16, float16 or float32 parameters, not {}", name(type)));
  }
  if (params == nullptr && type != DType::float32) {
    throw usage_error("the Adam kernel writes 16-bit parameters to their own buffer: params must not be null");
  }
  if (n == 0) return;
  // The bias corrections as the host's update computes them (numerics/adam.cpp), so that both round alike.
  const float bc1 = 1.0f - std::pow(step.beta1, static_cast<float>(step.step));
  const float bc2 = 1.0f - std::pow(step.beta2, static_cast<float>(step.step));
  const AdamKernelArgs args{step.beta1, step.beta2, step.eps, step.grad_scale, step.lr / bc1, 1.0f / bc2};
  const ParamType kind = type == DType::bfloat16  ? ParamType::bfloat16
                         : type == DType::float16 ? ParamType::float16
                                                  : ParamType::float32;
  launched(launch_adam(args, kind, grads, master, m, v, params, n, stream_), "the Adam kernel");
}

void CudaMath::copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                         std::size_t row_bytes, std::size_t rows) {
  launched(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, row_bytes, rows, cudaMemcpyDeviceToDevice, stream_),
           "cudaMemcpy2DAsync (a block of rows)");
}

void CudaMath::to_bfloat16(const float* src, std::uint16_t* dst, std::size_t n) {
  launched(launch_to_bfloat16(src, dst, n, stream_), "the bfloat16 conversion kernel");
}

void CudaMath::from_bfloat16(const std::uint16_t* src, float* dst, std::size_t n) {
  launched(launch_from_bfloat16(src, dst, n, stream_), "the bfloat16 conversion kernel");
}

void CudaMath::upload(void* dst, const void* src, std::size_t bytes) {
  launched(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync (to the GPU)");
}

void CudaMath::download(void* dst, const void* src, std::size_t bytes) {
  check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync (from the GPU)");
  synchronize();
}

void CudaMath::zero(void* dst, std::size_t bytes) {
  launched(cudaMemsetAsync(dst, 0, bytes, stream_), "cudaMemsetAsync (zeros)");
}

void CudaMath::synchronize() { check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (math)"); }

void CudaMath::reset_marks() {
  used_marks_ = 0;
  check_cuda(cudaEventRecord(origin_, stream_), "cudaEventRecord (math marks)");
}

std::size_t CudaMath::mark() {
  if (used_marks_ == marks_.size()) {
    DeviceGuard on(device_);
    cudaEvent_t e = nullptr;
    check_cuda(cudaEventCreate(&e), "cudaEventCreate (math marks)");
    marks_.push_back(e);
  }
  check_cuda(cudaEventRecord(marks_[used_marks_], stream_), "cudaEventRecord (math marks)");
  return used_marks_++;
}

std::vector<double> CudaMath::mark_seconds() {
  std::vector<double> out;
  for (std::size_t i = 0; i < used_marks_; ++i) {
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, origin_, marks_[i]), "cudaEventElapsedTime (math marks)");
    out.push_back(static_cast<double>(ms) * 1e-3);
  }
  return out;
}

}  // namespace distbench::nccl
