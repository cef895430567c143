// The model data parallelism trains here: a real MLP (Linear + ReLU layers, softmax cross-entropy), forward and
// backward through BLAS (OpenBLAS' sgemm) on host memory, fp32. Parameters and gradients live in one flat buffer
// each, tensor after tensor (layer l: weight, then bias), so that a bucket of gradients can be reduced where it lies
// or packed from it. Backward reports each tensor's gradient as soon as it is made (last layer first), which is
// when data parallelism may start reducing it.
#pragma once

#include "benchmarks/train/buckets.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace distbench::train {

// The threads OpenBLAS may use in this process (the cores a rank may use: the host's cores over its ranks).
void set_blas_threads(int threads);

struct MlpShape {
  std::size_t inputs = 256;  // features of a sample
  std::size_t hidden = 256;  // width of every hidden layer
  std::size_t layers = 4;    // Linear layers (>= 1): layers - 1 hidden ReLU layers, then the classifier
  std::size_t classes = 10;
};

class Mlp {
 public:
  // Parameters initialised deterministically from `seed`, uniform within 1/sqrt(fan-in) as PyTorch's Linear does.
  Mlp(const MlpShape& shape, std::uint64_t seed);

  const MlpShape& shape() const { return shape_; }
  const std::vector<TensorSpec>& tensors() const { return tensors_; }
  std::size_t tensor_offset(std::size_t k) const { return offsets_[k]; }  // first element of tensor k
  std::vector<float>& params() { return params_; }
  const std::vector<float>& params() const { return params_; }
  std::vector<float>& grads() { return grads_; }

  // Mean cross-entropy of a batch (`batch` rows of `inputs` features, row-major; labels in [0, classes)), keeping
  // what backward needs. Called per layer before it runs: `on_layer(l)`, so that a caller can make progress on
  // communication between layers.
  float forward(const float* x, const int* labels, std::size_t batch,
                const std::function<void(std::size_t)>& on_layer = {});
  // The gradients of that loss (overwritten, scaled by `scale`: e.g. the local batch over the global one), last
  // layer first; `on_gradient(k)` once tensor k's gradient is complete. Each matrix product is cut into blocks of
  // about kProgressFlops, with `on_progress()` between them: where data parallelism drives the collectives in
  // flight (MPI moves a nonblocking allreduce only inside its calls).
  void backward(float scale, const std::function<void(std::size_t)>& on_gradient = {},
                const std::function<void()>& on_progress = {});
  static constexpr double kProgressFlops = 4e6;  // about 0.1-1 ms of one core's sgemm

 private:
  MlpShape shape_;
  std::vector<TensorSpec> tensors_;
  std::vector<std::size_t> offsets_;
  std::vector<float> params_, grads_;
  // Kept by forward for backward: each layer's input (post-ReLU), the softmax probabilities, the labels, the batch.
  std::vector<std::vector<float>> acts_;
  std::vector<float> probs_;
  std::vector<int> labels_;
  std::size_t batch_ = 0;
};

// A learnable synthetic data set: sample i's features are deterministic pseudo-random values in [-1, 1], its label
// the class a fixed random linear "teacher" scores highest. Every rank can make any sample: rank r of N reads samples
// [step * global + r * local, + local) of step `step`.
struct TeacherData {
  MlpShape shape;
  std::uint64_t seed = 1;
  std::vector<float> teacher;  // classes x inputs

  TeacherData(const MlpShape& shape, std::uint64_t seed);
  void batch(std::uint64_t first_sample, std::size_t count, float* x, int* labels) const;
};

}  // namespace distbench::train
