#include "backends/nccl/nccl_types.hpp"

#include <fmt/core.h>

namespace distbench::nccl {

ncclDataType_t nccl_dtype(DType t) {
  switch (t) {
    case DType::int8: return ncclInt8;
    case DType::uint8: return ncclUint8;
    case DType::int32: return ncclInt32;
    case DType::uint32: return ncclUint32;
    case DType::int64: return ncclInt64;
    case DType::uint64: return ncclUint64;
    case DType::float16: return ncclFloat16;
    case DType::bfloat16: return ncclBfloat16;
    case DType::float32: return ncclFloat32;
    case DType::float64: return ncclFloat64;
  }
  return ncclInt8;
}

std::optional<ncclRedOp_t> nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return ncclSum;
    case ReduceOp::prod: return ncclProd;
    case ReduceOp::min: return ncclMin;
    case ReduceOp::max: return ncclMax;
    case ReduceOp::avg: return ncclAvg;
    case ReduceOp::band:
    case ReduceOp::bor:
    case ReduceOp::bxor: return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> nccl_unsupported(Collective c, DType t, ReduceOp op) {
  if (!is_reduction(c)) return std::nullopt;
  if (!nccl_op(op)) {
    return fmt::format("NCCL has no bitwise reductions ({} is one); run {} with --backend mpi", name(op), name(c));
  }
  if (!defined_for(op, t)) return fmt::format("{} is not defined for {}", name(op), name(t));
  return std::nullopt;
}

}  // namespace distbench::nccl
