// Deterministic pseudo-random values for synthetic models and data (train, tp): element `index` of the stream
// `seed`, so that any rank makes any element alone, without communication.
#pragma once

#include <cstdint>

namespace distbench::numerics {

// A value in [-1, 1) from (seed, index): splitmix64's finaliser over the pair.
inline float uniform_value(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ULL + index + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<float>(static_cast<double>(z >> 40) / static_cast<double>(1ULL << 23) - 1.0);
}

}  // namespace distbench::numerics
