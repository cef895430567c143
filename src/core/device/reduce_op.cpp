#include "core/device/reduce_op.hpp"

#include <array>

namespace distbench {
namespace {
constexpr std::array kAllReduceOps = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max,
                                      ReduceOp::avg, ReduceOp::band, ReduceOp::bor, ReduceOp::bxor};
}

std::span<const ReduceOp> all_reduce_ops() { return kAllReduceOps; }

std::string_view name(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::prod: return "prod";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    case ReduceOp::avg: return "avg";
    case ReduceOp::band: return "band";
    case ReduceOp::bor: return "bor";
    case ReduceOp::bxor: return "bxor";
  }
  return "?";
}

std::optional<ReduceOp> parse_reduce_op(std::string_view text) {
  for (ReduceOp op : kAllReduceOps) {
    if (name(op) == text) return op;
  }
  return std::nullopt;
}

bool is_bitwise(ReduceOp op) { return op == ReduceOp::band || op == ReduceOp::bor || op == ReduceOp::bxor; }

bool defined_for(ReduceOp op, DType t) { return !is_bitwise(op) || is_integer(t); }

}  // namespace distbench
