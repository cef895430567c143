// Element types that collectives move and reduce.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace distbench {

enum class DType { int8, uint8, int32, uint32, int64, uint64, float16, bfloat16, float32, float64 };

std::span<const DType> all_dtypes();
std::string_view name(DType t);
// The name nccl-tests' tables print: float, half, double for the IEEE types; the others as name() has them.
std::string_view nccl_tests_name(DType t);
// Accepts the canonical names and the aliases nccl-tests users type (half, float, double, bf16, ...).
std::optional<DType> parse_dtype(std::string_view text);
std::size_t size_of(DType t);
bool is_integer(DType t);
bool is_signed(DType t);
// Largest integer N such that every integer in [-N, N] is exactly representable (for integer types: the range
// limit that keeps arithmetic free of wrap-around is not relevant, integer arithmetic is checked modulo 2^bits).
double exact_integer_limit(DType t);

}  // namespace distbench
