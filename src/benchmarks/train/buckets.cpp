#include "benchmarks/train/buckets.hpp"

#include <algorithm>

namespace distbench::train {

std::vector<Bucket> assign_buckets(const std::vector<TensorSpec>& tensors, std::size_t element_bytes,
                                   std::size_t bucket_bytes, std::size_t first_bucket_bytes) {
  std::vector<Bucket> out;
  Bucket open;
  const auto cap = [&] {
    if (bucket_bytes == 0) return std::size_t{0};
    return out.empty() ? std::min(first_bucket_bytes, bucket_bytes) : bucket_bytes;
  };
  for (std::size_t k = tensors.size(); k-- > 0;) {
    open.tensors.push_back(k);
    open.elements += tensors[k].elements;
    if (open.elements * element_bytes >= cap()) {
      out.push_back(std::move(open));
      open = Bucket{};
    }
  }
  if (!open.tensors.empty()) out.push_back(std::move(open));
  return out;
}

}  // namespace distbench::train
