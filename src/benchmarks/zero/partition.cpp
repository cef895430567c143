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

std::vector<Segment> bucket_segments(std::size_t psi, std::size_t bucket, std::size_t ranks) {
  if (bucket == 0 || bucket > psi) bucket = psi;
  std::vector<Segment> out;
  for (std::size_t begin = 0; begin < psi; begin += bucket) {
    out.push_back({begin, partition(std::min(bucket, psi - begin), ranks)});
  }
  return out;
}

std::vector<Segment> layer_segments(const std::vector<std::size_t>& layers, std::size_t ranks) {
  std::vector<Segment> out;
  std::size_t begin = 0;
  for (std::size_t n : layers) {
    out.push_back({begin, partition(n, ranks)});
    begin += n;
  }
  return out;
}

std::size_t padded_elements(const std::vector<Segment>& segments) {
  std::size_t n = 0;
  for (const Segment& s : segments) n += s.part.padded();
  return n;
}

std::size_t shard_elements(const std::vector<Segment>& segments) {
  std::size_t n = 0;
  for (const Segment& s : segments) n += s.part.shard;
  return n;
}

std::size_t largest_padded(const std::vector<Segment>& segments) {
  std::size_t n = 0;
  for (const Segment& s : segments) n = std::max(n, s.part.padded());
  return n;
}

}  // namespace distbench::zero
