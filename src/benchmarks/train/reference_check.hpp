// train --check against one rank: every replica must end where one rank trained on the whole global batches ends, up
// to the rounding of sums taken in another order (check_tolerance). The only check of the three (with the buckets'
// and the replicas') that sees a wrong tensor-parallel pass: a tp group that sums its partial products wrongly does
// so alike on every replica, which then reduce and apply the same wrong gradients in agreement.
#pragma once

#include "benchmarks/train/plan.hpp"
#include "core/device/dense_math.hpp"
#include "core/device/device.hpp"

#include <cstdint>
#include <vector>

namespace distbench::train {

// One rank trained on the whole global batches of `plan` (the model from plan.seed, the data from plan.seed + 1) for
// `steps` steps, without tensor parallelism: the whole model's parameters (Mlp::shard_of takes a rank's part).
std::vector<float> one_rank_reference(const TrainPlan& plan, int steps, Device& device, DenseMath& math);

// How many of `params` differ from `reference` (the same part of the model) by more than `tolerance`
// (relative_difference).
std::int64_t parameters_beyond(const std::vector<float>& params, const std::vector<float>& reference, double tolerance);

}  // namespace distbench::train
