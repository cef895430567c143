#include "benchmarks/tp/shard.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

#include <charconv>

namespace distbench::tp {
namespace {

bool parse_positive(std::string_view s, std::size_t& out) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && out > 0;
}

}  // namespace

Shape parse_shape(std::string_view text, std::string_view option) {
  const std::size_t x = text.find_first_of("xX");
  Shape s;
  if (x == std::string_view::npos || !parse_positive(text.substr(0, x), s.rows) ||
      !parse_positive(text.substr(x + 1), s.cols)) {
    throw usage_error(
        fmt::format("{} {}: give the tensor's shape as ROWSxCOLS of positive integers, e.g. 4096x4096", option, text));
  }
  return s;
}

std::string shape_text(const Shape& s) { return fmt::format("{}x{}", s.rows, s.cols); }

int normalize_dim(int dim) {
  if (dim == 0) return 0;
  if (dim == 1 || dim == -1) return 1;
  throw usage_error(
      fmt::format("--dim {}: a 2-D tensor is split along dim 0 (rows) or 1 (columns; -1 is the same)", dim));
}

ShardLayout shard_layout(const Shape& full, int dim, int parts) {
  ShardLayout l;
  l.full = full;
  l.dim = normalize_dim(dim);
  l.parts = parts;
  const std::size_t along = l.dim == 0 ? full.rows : full.cols;
  if (parts < 1 || along % static_cast<std::size_t>(parts) != 0) {
    throw usage_error(
        fmt::format("a {} tensor does not split into {} equal shards along dim {} ({} {}): use a "
                    "multiple of the group size",
                    shape_text(full), parts, l.dim, along, l.dim == 0 ? "rows" : "columns"));
  }
  l.shard = l.dim == 0 ? Shape{full.rows / static_cast<std::size_t>(parts), full.cols}
                       : Shape{full.rows, full.cols / static_cast<std::size_t>(parts)};
  return l;
}

}  // namespace distbench::tp
