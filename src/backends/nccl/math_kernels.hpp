// The elementwise and row-wise kernels of CudaMath (dense_math.hpp says what each computes), fp32. Launches are
// asynchronous on `stream`; the current device must be the stream's; the launch's status is returned.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace distbench::nccl {

cudaError_t launch_add_bias(float* z, const float* bias, std::size_t rows, std::size_t cols, bool relu,
                            cudaStream_t stream);
cudaError_t launch_column_sums(const float* m, std::size_t rows, std::size_t cols, float* out, cudaStream_t stream);
cudaError_t launch_relu_backward(float* g, const float* a, std::size_t n, cudaStream_t stream);
cudaError_t launch_softmax_cross_entropy(float* logits, const int* labels, std::size_t rows, std::size_t classes,
                                         float* row_loss, cudaStream_t stream);
cudaError_t launch_cross_entropy_backward(float* probs, const int* labels, std::size_t rows, std::size_t classes,
                                          float scale, cudaStream_t stream);
cudaError_t launch_sgd(float* params, const float* grads, float* velocity, std::size_t n, float lr, float momentum,
                       cudaStream_t stream);
// fp32 to bfloat16 and back, with core/device/half.hpp's rounding (to nearest, ties to even; NaN stays NaN).
cudaError_t launch_to_bfloat16(const float* src, std::uint16_t* dst, std::size_t n, cudaStream_t stream);
cudaError_t launch_from_bfloat16(const std::uint16_t* src, float* dst, std::size_t n, cudaStream_t stream);
// Adam with the host's operation order and rounding (no fused multiply-adds): bit-identical to numerics/adam.cpp for
// the same step size lr / correction1 and 1 / correction2. Gradients and parameters are of `type` (the parameters
// being the master weights rounded with core/device/half.hpp's rounding); with float32 and `params` null the master
// weights
// are the parameters.
enum class ParamType { bfloat16, float16, float32 };
struct AdamKernelArgs {
  float beta1, beta2, eps, grad_scale, step_size, inv_correction2;
};
cudaError_t launch_adam(const AdamKernelArgs& args, ParamType type, const void* grads, float* master, float* m,
                        float* v, void* params, std::size_t n, cudaStream_t stream);

}  // namespace distbench::nccl
