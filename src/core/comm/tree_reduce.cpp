#include "core/comm/tree_reduce.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace distbench {
namespace {

void combine(std::vector<double>& into, const std::vector<std::byte>& bytes, ElementwiseOp op, int from) {
  if (bytes.size() != into.size() * sizeof(double)) {
    throw failure(fmt::format("internal error: rank {} reduced {} bytes where {} were expected", from, bytes.size(),
                              into.size() * sizeof(double)));
  }
  for (std::size_t i = 0; i < into.size(); ++i) {
    double v = 0;
    std::memcpy(&v, bytes.data() + i * sizeof(double), sizeof(double));
    switch (op) {
      case ElementwiseOp::min: into[i] = std::min(into[i], v); break;
      case ElementwiseOp::max: into[i] = std::max(into[i], v); break;
      case ElementwiseOp::sum: into[i] += v; break;
    }
  }
}

}  // namespace

std::vector<double> reduce_elementwise(Connector& c, std::span<const double> mine, ElementwiseOp op, int root,
                                       std::chrono::steady_clock::time_point deadline) {
  const int p = c.size();
  const int me = (c.rank() - root + p) % p;  // the rank relative to the root, which is 0
  std::vector<double> partial(mine.begin(), mine.end());
  // At each level a rank whose bit `mask` is clear takes its child's partial result (me + mask); a rank with the bit
  // set sends its own to its parent (me - mask) and is done.
  for (int mask = 1; mask < p; mask <<= 1) {
    if ((me & mask) != 0) {
      const int parent = (me - mask + root) % p;
      c.send_until(parent, std::as_bytes(std::span<const double>(partial)), deadline);
      return {};
    }
    if (me + mask < p) {
      const int child = (me + mask + root) % p;
      combine(partial, c.receive_until(child, deadline), op, child);
    }
  }
  return partial;
}

std::vector<double> vector_of_rank(Connector& c, std::span<const double> mine, int from, int root,
                                   std::chrono::steady_clock::time_point deadline) {
  if (from == root) return c.rank() == root ? std::vector<double>(mine.begin(), mine.end()) : std::vector<double>{};
  if (c.rank() == from) c.send_until(root, std::as_bytes(mine), deadline);
  if (c.rank() != root) return {};
  const std::vector<std::byte> bytes = c.receive_until(from, deadline);
  std::vector<double> out(bytes.size() / sizeof(double));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(double));
  return out;
}

}  // namespace distbench
