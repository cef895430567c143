// TorchShard's (and Megatron's) tensor-parallel linear layers over one model-parallel group of G ranks, forward and
// backward, computed through the device's DenseMath (cuBLAS on a GPU, OpenBLAS on the CPU):
//   column  y = x W^T + b with W (out x in) split on its output features: each rank holds out/G rows of W and of b;
//           the input goes through copy (identity forward; its gradient all-reduced backward); the output stays
//           sharded on its last dim.
//   row     W split on its input features (in/G columns each); the input is scattered along its last dim (its
//           gradient all-gathered backward), the partial products go through reduce (all-reduce), then the whole
//           bias is added.
//   mlp     Megatron's block: column (in -> out) with ReLU, its sharded output straight into row (out -> in): one
//           all-reduce forward, one backward.
// Weights, input and upstream gradient are deterministic functions of their global index, so each rank builds its
// shard alone, and check() compares with the single-rank layer computed on the CPU.
#pragma once

#include "core/comm/communicator.hpp"
#include "core/device/dense_math.hpp"
#include "core/device/device.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace distbench::tp {

enum class LayerKind { column, row, mlp };
std::string_view name(LayerKind kind);
std::optional<LayerKind> parse_layer(std::string_view text);

struct LayerShape {
  std::size_t in = 4096, out = 16384, batch = 64;
};

// Throws usage_error when G does not divide the features the layer splits.
void check_divisible(LayerKind kind, const LayerShape& shape, int group);
// Bytes one rank's layer holds on the device (weights, gradients, activations).
std::uint64_t layer_bytes(LayerKind kind, const LayerShape& shape, int group);

// One forward + backward, seconds, from marks in the math's queue: the communication is the time from before a
// collective was started to after it was waited for.
struct LayerTimes {
  double forward = 0, backward = 0, comm = 0;
};

// The step a layer's row shows, and its parts from that same step: the sample whose slowest rank's step time is the
// median (the lower middle one for an even count), with that rank's forward, backward and communication in it. (A
// median of each column on its own can show parts that add up to more than the step.) Inputs by rank, then sample.
struct ShownStep {
  double step = 0;
  LayerTimes parts;
};
ShownStep median_step(const std::vector<std::vector<double>>& steps, const std::vector<std::vector<double>>& forwards,
                      const std::vector<std::vector<double>>& backwards, const std::vector<std::vector<double>>& comms);

struct LayerCheck {
  std::uint64_t wrong = 0;    // elements of outputs and gradients beyond their bound
  double max_rel_diff = 0;    // |a - b| / max(|a|, |b|, 1% of the tensor's largest reference magnitude), for reading
  double max_over_bound = 0;  // the largest difference as a fraction of its element's bound (above 1: wrong)
};

struct FullTensors;  // the layer's tensors as one rank alone holds them (tp_layers.cpp)

class ParallelLayer {
 public:
  ParallelLayer(LayerKind kind, const LayerShape& shape, Communicator& group, Device& device, DenseMath& math,
                std::uint64_t seed);
  ~ParallelLayer();
  ParallelLayer(const ParallelLayer&) = delete;
  ParallelLayer& operator=(const ParallelLayer&) = delete;

  LayerTimes step(Seconds timeout);
  // After a step: this rank's output shard and gradients against the single-rank layer on the CPU, each element
  // within the rounding bound of float32 sums of its length (tp_layers.cpp: compare), not a fixed tolerance.
  LayerCheck check(int cpu_threads);
  // Floating-point operations of this rank's forward and backward.
  double flops() const;

 private:
  struct Buffers;
  void forward(std::vector<std::size_t>& comm_marks, Seconds timeout);
  void backward(std::vector<std::size_t>& comm_marks, Seconds timeout);
  // Sum all-reduce of the first n elements of a named buffer, in place, between two marks.
  void allreduce(std::string_view buffer, std::size_t n, std::vector<std::size_t>& marks, Seconds timeout);
  // The constructor's steps: a named buffer of `elements` floats (with `values`, uploaded), and each kind's own.
  void make_buffer(const std::string& name, std::size_t elements, const std::vector<float>* values = nullptr);
  void make_mlp_buffers(const FullTensors& t);
  void make_column_buffers(const FullTensors& t);
  void make_row_buffers(const FullTensors& t);
  // check()'s steps: a named buffer's first `elements` floats, the longest chain of rounded operations to an
  // element, and each kind's comparison with the single-rank layer on `cpu`.
  std::vector<float> downloaded(std::string_view name, std::size_t elements);
  double longest_chain() const;
  void check_mlp(DenseMath& cpu, const FullTensors& t, LayerCheck& c);
  void check_linear(DenseMath& cpu, const FullTensors& t, LayerCheck& c);

  LayerKind kind_;
  LayerShape shape_;
  Communicator& group_;
  Device& device_;
  DenseMath& math_;
  std::uint64_t seed_;
  int g_, me_;
  std::unique_ptr<Buffers> b_;
};

}  // namespace distbench::tp
