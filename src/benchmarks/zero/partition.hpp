// How ZeRO splits Ψ parameters over N ranks: the layers (tensors) the parameters come in, the flat partition of
// stages 1 and 2 (optimizer state and gradients: one contiguous shard per rank), and the per-layer partition of stage
// 3 (each layer's parameters sharded on their own, so that a layer can be gathered alone). Shards are padded to equal
// sizes, as collectives on equal blocks (reduce-scatter, allgather) want them; the padding is reported.
#pragma once

#include <cstddef>
#include <vector>

namespace distbench::zero {

// Ψ elements in `layers` tensors: Ψ / layers each, the first Ψ % layers one element more. Throws usage_error for
// Ψ = 0, no layers, or more layers than parameters.
std::vector<std::size_t> layer_sizes(std::size_t psi, std::size_t layers);

// A half-open range of elements.
struct Range {
  std::size_t begin = 0, end = 0;
  std::size_t size() const { return end - begin; }
};

// `elements` split over `ranks` in equal shards of ceil(elements / ranks): rank r owns [r s, (r + 1) s) clipped to
// the elements; the last ranks' shards are short (or empty), and padded to s in the buffers collectives see.
struct Partition {
  std::size_t elements = 0;
  std::size_t ranks = 1;
  std::size_t shard = 0;  // ceil(elements / ranks): every rank's buffer holds this many

  Range owned(std::size_t rank) const;
  std::size_t padded() const { return shard * ranks; }  // elements the collectives move
  std::size_t padding() const { return padded() - elements; }
};
// Throws usage_error for no ranks.
Partition partition(std::size_t elements, std::size_t ranks);

// Stage 3: one partition per layer.
std::vector<Partition> layer_partitions(const std::vector<std::size_t>& layers, std::size_t ranks);

// A run of parameters reduced and gathered as one: a gradient bucket (stages 0-2) or a layer (stage 3), sharded
// over the ranks on its own (rank r owns the r-th block of every segment).
struct Segment {
  std::size_t begin = 0;  // its first parameter (global index)
  Partition part;
};

// Ψ parameters in buckets of `bucket` elements (the last one shorter; 0: one bucket of all), each sharded over
// `ranks`. Buckets cut across layers, as a flat gradient buffer does.
std::vector<Segment> bucket_segments(std::size_t psi, std::size_t bucket, std::size_t ranks);
// One segment per layer.
std::vector<Segment> layer_segments(const std::vector<std::size_t>& layers, std::size_t ranks);

// Sums over segments: padded elements (what the collectives move), shard elements (what one rank owns, padded), and
// the largest segment's padded size.
std::size_t padded_elements(const std::vector<Segment>& segments);
std::size_t shard_elements(const std::vector<Segment>& segments);
std::size_t largest_padded(const std::vector<Segment>& segments);

}  // namespace distbench::zero
