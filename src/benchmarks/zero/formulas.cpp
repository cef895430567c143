#include "benchmarks/zero/formulas.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <numeric>

namespace distbench::zero {
namespace {

std::uint64_t sum(const std::vector<std::size_t>& v) { return std::accumulate(v.begin(), v.end(), std::uint64_t{0}); }

// Elements each rank sends in a ring reduce-scatter or allgather of `padded` elements over `ranks`: (N-1)/N of them.
std::uint64_t ring_share(std::uint64_t padded, std::size_t ranks) { return padded / ranks * (ranks - 1); }

}  // namespace

Precision precision_of(std::string_view dtype) {
  if (dtype == "bf16" || dtype == "fp16") return {2, 2, 12};
  if (dtype == "fp32") return {4, 4, 8};
  throw usage_error(fmt::format("--dtype {}: choose bf16, fp16 or fp32", dtype));
}

Memory model_state_bytes(Stage stage, const std::vector<std::size_t>& layers, std::size_t ranks, const Precision& p,
                         std::size_t live_layers) {
  const std::uint64_t psi = sum(layers);
  const std::uint64_t shard = partition(psi, ranks).shard;
  Memory m;
  switch (stage) {
    case Stage::s0:
      m = {psi * p.param, psi * p.grad, psi * p.optimizer};
      break;
    case Stage::s1:
      m = {psi * p.param, psi * p.grad, shard * p.optimizer};
      break;
    case Stage::s2:
      m = {psi * p.param, shard * p.grad, shard * p.optimizer};
      break;
    case Stage::s3: {
      // Each layer's own shard of parameters, gradients and optimizer state, plus the largest layers gathered whole.
      std::uint64_t shards = 0;
      for (const Partition& part : layer_partitions(layers, ranks)) shards += part.shard;
      std::vector<std::size_t> largest(layers);
      std::sort(largest.begin(), largest.end(), std::greater<>());
      largest.resize(std::min(live_layers, largest.size()));
      m = {(shards + sum(largest)) * p.param, shards * p.grad, shards * p.optimizer};
      break;
    }
  }
  return m;
}

std::uint64_t bytes_sent_per_step(Stage stage, const std::vector<std::size_t>& layers, std::size_t ranks,
                                  const Precision& p, Zero1Reduce zero1) {
  const std::uint64_t padded = partition(sum(layers), ranks).padded();
  const std::uint64_t share = ring_share(padded, ranks);  // a Ψ, in elements
  switch (stage) {
    case Stage::s0:
      return 2 * share * p.grad;
    case Stage::s1:
      return (zero1 == Zero1Reduce::allreduce ? 2 * share : share) * p.grad + share * p.param;
    case Stage::s2:
      return share * p.grad + share * p.param;
    case Stage::s3: {
      std::uint64_t gathered = 0;
      for (const Partition& part : layer_partitions(layers, ranks)) gathered += ring_share(part.padded(), ranks);
      return 2 * gathered * p.param + gathered * p.grad;  // gradients reduce-scattered layer by layer
    }
  }
  return 0;
}

}  // namespace distbench::zero
