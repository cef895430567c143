// Reduction operators.
#pragma once

#include "core/device/dtype.hpp"

#include <optional>
#include <span>
#include <string_view>

namespace distbench {

// sum prod min max avg are NCCL's and MPI's; band bor bxor are MPI's bitwise operators (integer types only).
enum class ReduceOp { sum, prod, min, max, avg, band, bor, bxor };

std::span<const ReduceOp> all_reduce_ops();
std::string_view name(ReduceOp op);
std::optional<ReduceOp> parse_reduce_op(std::string_view text);
bool is_bitwise(ReduceOp op);
// Whether `op` is defined for elements of type `t` (bitwise operators need integers).
bool defined_for(ReduceOp op, DType t);

}  // namespace distbench
