#include "benchmarks/zero/partition.hpp"

#include "core/error.hpp"

#include <algorithm>

namespace distbench::zero {

std::vector<std::size_t> layer_sizes(std::size_t psi, std::size_t layers) {
  if (psi == 0) throw usage_error("--params 0: a model needs at least one parameter");
  if (layers == 0) throw usage_error("--layers 0: the parameters need at least one layer");
  if (layers > psi) {
    throw usage_error(
        fmt::format("--layers {} exceeds --params {}: every layer needs at least one parameter", layers, psi));
  }
  std::vector<std::size_t> out(layers, psi / layers);
  for (std::size_t i = 0; i < psi % layers; ++i) ++out[i];
  return out;
}

Range Partition::owned(std::size_t rank) const {
  const std::size_t begin = std::min(rank * shard, elements);
  return {begin, std::min(begin + shard, elements)};
}

Partition partition(std::size_t elements, std::size_t ranks) {
  if (ranks == 0) throw usage_error("a partition needs at least one rank");
  return {elements, ranks, (elements + ranks - 1) / ranks};
}

std::vector<Partition> layer_partitions(const std::vector<std::size_t>& layers, std::size_t ranks) {
  std::vector<Partition> out;
  out.reserve(layers.size());
  for (std::size_t n : layers) out.push_back(partition(n, ranks));
  return out;
}

}  // namespace distbench::zero
