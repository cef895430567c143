// Reading and writing one element of any dtype on the host, as a double or an exact integer.
#pragma once

#include "core/device/dtype.hpp"
#include "core/device/half.hpp"
#include "core/device/pattern.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace distbench {

// Calls f(T{}) with the C++ storage type of `t` (std::uint16_t for the 16-bit float formats).
template <typename F>
decltype(auto) visit_storage(DType t, F&& f) {
  switch (t) {
    case DType::int8: return f(std::int8_t{});
    case DType::uint8: return f(std::uint8_t{});
    case DType::int32: return f(std::int32_t{});
    case DType::uint32: return f(std::uint32_t{});
    case DType::int64: return f(std::int64_t{});
    case DType::uint64: return f(std::uint64_t{});
    case DType::float16:
    case DType::bfloat16: return f(std::uint16_t{});
    case DType::float32: return f(float{});
    case DType::float64: return f(double{});
  }
  return f(std::uint8_t{});
}

// Storage bits of a pattern value in dtype `t` (pattern.hpp): integers wrap modulo 2^bits (as C++20 defines); floats
// are m * 2^e, exact in a double, then in the dtype (every pattern value is representable: no rounding happens).
template <typename Storage>
Storage encode_pattern(DType t, const PatternValue& v) {
  if (is_integer(t)) return static_cast<Storage>(v.m);
  const double value = std::ldexp(static_cast<double>(v.m), v.e);
  if (t == DType::float16) return static_cast<Storage>(float_to_half(static_cast<float>(value)));
  if (t == DType::bfloat16) return static_cast<Storage>(float_to_bfloat16(static_cast<float>(value)));
  return static_cast<Storage>(value);
}

}  // namespace distbench
