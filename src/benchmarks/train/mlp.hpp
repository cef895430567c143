// The model data parallelism trains here: a real MLP (Linear + ReLU layers, softmax cross-entropy), fp32, forward
// and backward through a DenseMath on the device's memory (OpenBLAS on the CPU, cuBLAS and kernels on a GPU).
// Parameters and gradients live in one flat buffer each, tensor after tensor (layer l: weight, then bias), so that
// a bucket of gradients can be reduced where it lies. Backward reports each tensor's gradient as soon as it is made
// (last layer first), which is when data parallelism may start reducing it.
#pragma once

#include "benchmarks/train/buckets.hpp"
#include "core/comm/communicator.hpp"
#include "core/device/dense_math.hpp"
#include "core/device/device.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace distbench::train {

struct MlpShape {
  std::size_t inputs = 256;  // features of a sample
  std::size_t hidden = 256;  // width of every hidden layer
  std::size_t layers = 4;    // Linear layers (>= 1): layers - 1 hidden ReLU layers, then the classifier
  std::size_t classes = 10;
};

// Weights and biases of every layer.
std::size_t parameter_count(const MlpShape& shape);

// Tensor parallelism inside the model (train --tp-size): the hidden layers in pairs, Megatron's column-parallel layer
// (output features split over the group) then its row-parallel one (input features split, partial products summed
// over the group); an unpaired hidden layer and the classifier stay whole on every rank. The rank holds its own
// part of each tensor, consecutively as ever, so data parallelism reduces those parts across replicas unchanged.
struct TensorParallel {
  Communicator* group = nullptr;  // this rank's model-parallel group; null: none
  Seconds timeout{300.0};         // bound on the group's collectives
};

class Mlp {
 public:
  // Parameters initialised deterministically from `seed`, uniform within 1/sqrt(fan-in) as PyTorch's Linear does,
  // in memory of `device`, computed on by `math` (the device's).
  Mlp(const MlpShape& shape, std::uint64_t seed, Device& device, DenseMath& math, const TensorParallel& tp = {});

  const MlpShape& shape() const { return shape_; }
  const std::vector<TensorSpec>& tensors() const { return tensors_; }
  std::size_t tensor_offset(std::size_t k) const { return offsets_[k]; }  // first element of tensor k
  std::size_t parameters() const { return parameters_; }
  std::size_t batch() const { return batch_; }  // samples of the loaded batch
  DenseMath& math() { return math_; }
  Device& device() { return device_; }
  float* params() { return static_cast<float*>(params_->data()); }
  float* grads() { return static_cast<float*>(grads_->data()); }
  Buffer& grad_buffer() { return *grads_; }
  Buffer& param_buffer() { return *params_; }
  std::vector<float> download_params();
  // This rank's part of the whole model's parameters `full` (laid out as one rank without tensor parallelism).
  std::vector<float> shard_of(const std::vector<float>& full) const;

  // The next batch (`batch` rows of `inputs` features, row-major, on the host; labels in [0, classes)) copied to the
  // device, where forward reads it.
  void load_batch(const float* x, const int* labels, std::size_t batch);
  // The mean cross-entropy of the loaded batch is left for loss(); each layer's input is kept for backward.
  // `on_layer(l)` before layer l is queued.
  void forward(const std::function<void(std::size_t)>& on_layer = {});
  // The loss of the last forward (waits for it).
  float loss();
  // The gradients of that loss (overwritten, scaled by `scale`: e.g. the local batch over the global one), last
  // layer first; `on_gradient(k)` once tensor k's gradient is queued. On the CPU each matrix product is cut into
  // blocks of about kProgressFlops, with `on_progress()` between them: where data parallelism drives the collectives
  // in flight (MPI moves a nonblocking allreduce only inside its calls). A GPU computes apart: no blocks.
  void backward(float scale, const std::function<void(std::size_t)>& on_gradient = {},
                const std::function<void()>& on_progress = {});
  static constexpr double kProgressFlops = 4e6;  // about 0.1-1 ms of one core's sgemm

 private:
  enum class Split { replicated, column, row };
  float* act(std::size_t l) { return static_cast<float*>(acts_->data()) + act_offsets_[l]; }
  std::size_t tp_size() const;
  std::size_t tp_rank() const;
  std::size_t local_in(std::size_t l) const;   // layer l's input features on this rank
  std::size_t local_out(std::size_t l) const;  // and its output features
  void tp_allreduce(BufferRef at, std::size_t count);

  MlpShape shape_;
  Device& device_;
  DenseMath& math_;
  TensorParallel tp_;
  std::vector<Split> split_;  // per layer
  std::vector<TensorSpec> tensors_;
  std::vector<std::size_t> offsets_;
  std::size_t parameters_ = 0;
  std::unique_ptr<Buffer> params_, grads_;
  // Sized for the batch: every layer's input (acts_, layer 0's being the batch), the logits (then probabilities,
  // then their gradient), two scratch gradients, each row's loss and the labels.
  std::size_t capacity_ = 0;  // samples the buffers below hold
  std::vector<std::size_t> act_offsets_;
  std::unique_ptr<Buffer> acts_, logits_, dz_, da_, row_loss_, labels_;
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
