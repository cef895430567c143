// Products of user-given sizes (a tensor's rows x columns, a model's layers x width²), checked before anything is
// computed from them or allocated: 2^62 x 4 must not wrap to 0 bytes and pass a memory check.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>

namespace distbench {

// The most elements a user-given shape may describe: 2^56, far beyond any machine's memory, and small enough that the
// byte counts made from it (a few such products of up to 16-byte elements, summed) fit in 64 bits.
inline constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 56;

// The product of `factors`, or nullopt when it passes kMaxElements (wrapping included).
inline std::optional<std::uint64_t> bounded_product(std::initializer_list<std::uint64_t> factors) {
  std::uint64_t product = 1;
  for (const std::uint64_t f : factors) {
    if (__builtin_mul_overflow(product, f, &product) || product > kMaxElements) return std::nullopt;
  }
  return product;
}

}  // namespace distbench
