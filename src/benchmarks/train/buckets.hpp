// How data parallelism groups gradients for the allreduce (PyTorch DDP's rule, the seeds' "fuse small tensors"):
// gradients come last layer first, and are packed in that order into buckets; a bucket is closed once it holds at
// least its cap, so a tensor is never split and a bucket may pass its cap by its last tensor. The first bucket has
// a smaller cap (DDP: 1 MiB), so that the first allreduce starts early in the backward. A cap of 0 gives one bucket
// per tensor (the seeds' pass: one allreduce per tensor).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace distbench::train {

struct TensorSpec {
  std::string name;  // "fc3.weight"
  std::size_t elements = 0;
};

struct Bucket {
  std::vector<std::size_t> tensors;  // indices into the model's tensors, in the order their gradients are made
  std::size_t elements = 0;
};

inline constexpr std::size_t kFirstBucketBytes = std::size_t{1} << 20;  // DDP's first bucket

// `tensors` in forward order; `element_bytes` the gradient type's size. Every tensor lands in exactly one bucket.
std::vector<Bucket> assign_buckets(const std::vector<TensorSpec>& tensors, std::size_t element_bytes,
                                   std::size_t bucket_bytes, std::size_t first_bucket_bytes = kFirstBucketBytes);

}  // namespace distbench::train
