// What `distbench tp` runs, settled from the command line before any rank starts.
#pragma once

#include "benchmarks/tp/shard.hpp"
#include "benchmarks/tp/tp_layers.hpp"
#include "benchmarks/tp/tp_ops.hpp"
#include "core/device/dtype.hpp"

#include <cstdint>
#include <vector>

namespace distbench::tp {

struct TpPlan {
  int group_size = 0;  // ranks per model-parallel group (consecutive); 0: the whole world
  // The operations (when `layers` is empty).
  Shape shape{4096, 4096};
  std::vector<int> dims = {0, 1};  // normalized: 0 rows, 1 columns
  std::vector<Op> ops = {Op::scatter, Op::gather, Op::reduce, Op::copy};
  DType dtype = DType::float32;
  // The layers (--layer), each forward + backward.
  std::vector<LayerKind> layers;
  LayerShape layer;
  bool check = false;
  int iters = 20;
  int warmup = 5;
  double timeout_s = 300.0;
  std::uint64_t seed = 1;
};

}  // namespace distbench::tp
