#include "benchmarks/train/replica_check.hpp"

#include <cstring>

namespace distbench::train {

std::uint64_t bits_hash(const std::vector<float>& values) {
  std::uint64_t h = 1469598103934665603ull;
  for (const float f : values) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    for (int k = 0; k < 4; ++k) {
      h ^= (bits >> (8 * k)) & 0xffu;
      h *= 1099511628211ull;
    }
  }
  return h;
}

std::int64_t diverged_replicas(Connector& connector, const std::vector<float>& params, int tp_size,
                               const ArmedStep& step) {
  const auto hashes = allgather_value(connector, bits_hash(params), step);
  const auto tp = static_cast<std::size_t>(tp_size > 0 ? tp_size : 1);
  std::int64_t diverged = 0;
  for (std::size_t r = 0; r < hashes.size(); ++r) diverged += hashes[r] != hashes[r % tp] ? 1 : 0;
  return diverged;
}

}  // namespace distbench::train
