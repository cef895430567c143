// train --check: data-parallel replicas must hold the same parameters bit for bit after every checked step (the
// same reduced gradients, the same update). A tolerance against a one-rank run cannot see a bucket that was never
// reduced when its share of the parameters is small; replicas that disagree show it at once.
#pragma once

#include "core/comm/connector.hpp"

#include <cstdint>
#include <vector>

namespace distbench::train {

// FNV-1a over the bytes of `values`.
std::uint64_t bits_hash(const std::vector<float>& values);

// Collective over the connector: how many ranks hold parameters whose bits differ from those of the first rank holding
// the same part of the model (ranks r and r + k * tp_size hold the same part; tp_size 1: every rank the whole model).
std::int64_t diverged_replicas(Connector& connector, const std::vector<float>& params, int tp_size,
                               const ArmedStep& step);

}  // namespace distbench::train
