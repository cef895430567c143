// The optimizer step of a ZeRO shard: Adam over fp32 master weights, momentum and variance, in one fused pass that
// reads each element's gradient, master weight, m and v once and writes master, m, v and the parameter the model
// computes with (rounded to its 16-bit type, or fp32). Elementwise: an element's result depends on its own inputs
// only, so every partition of the same elements (stages 0-3, any rank count) gives bit-identical results.
#pragma once

#include "core/device/dense_math.hpp"
#include "core/device/dtype.hpp"

#include <cstddef>
#include <cstdint>

namespace distbench::numerics {

// Adam's hyperparameters (core/device/dense_math.hpp, which a device's one step of it, AdamStep, shares) and the
// threads the CPU's update runs on.
struct AdamConfig : AdamHyperparameters {
  int threads = 1;  // split a large shard over this many threads (the cores a rank may use)
};

// Step `step` (1-based: the bias corrections 1 - beta^step) over `n` elements, on `config.threads` threads when
// the shard is large enough to repay starting them (each thread a contiguous run: the results do not change).
// `grad` and `param` hold `type` elements (bfloat16, float16 or float32; another type is a usage_error); master, m
// and v are fp32. The buffers must not overlap. fp32 training keeps no separate master copy: with param null (float32
// only) the master weights are the parameters.
void adam_update(const AdamConfig& config, int step, DType type, const void* grad, float* master, float* m, float* v,
                 void* param, std::size_t n);

// The bytes one update moves: read grad, master, m, v; write master, m, v and (`separate_params`) the parameters.
std::uint64_t adam_bytes_moved(DType type, std::size_t n, bool separate_params = true);

}  // namespace distbench::numerics
