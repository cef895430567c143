// TorchShard's sharding of a 2-D tensor over a model-parallel group: along dim 0 (rows) or 1 (columns; -1 is the
// same), each of the G ranks of the group holds one equal block, rank g the g-th. A dim that G does not divide is
// refused (as TorchShard's split asserts divisibility): uneven shards would make every collective's counts differ.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace distbench::tp {

struct Shape {
  std::size_t rows = 0, cols = 0;
  std::size_t elements() const { return rows * cols; }
  bool operator==(const Shape&) const = default;
};

// "4096x4096" (also "4096X4096"); throws usage_error naming `option` for anything but two positive integers.
Shape parse_shape(std::string_view text, std::string_view option);
std::string shape_text(const Shape& s);  // "4096x4096"

// 0 stays 0; 1 and -1 are the columns (1); anything else is a usage_error.
int normalize_dim(int dim);

struct ShardLayout {
  Shape full;
  Shape shard;    // each rank's block
  int dim = 0;    // 0 or 1
  int parts = 1;  // G
  // Where part g's block starts in the full tensor (row-major, elements) and the full tensor's row pitch.
  std::size_t block_offset(int g) const { return dim == 0 ? g * shard.rows * full.cols : g * shard.cols; }
};

// Throws usage_error when `parts` does not divide the dim.
ShardLayout shard_layout(const Shape& full, int dim, int parts);

}  // namespace distbench::tp
