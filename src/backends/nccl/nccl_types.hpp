// distbench's dtypes and operators in NCCL's terms, and what NCCL cannot do.
#pragma once

#include "core/device/collective.hpp"
#include "core/device/dtype.hpp"
#include "core/device/reduce_op.hpp"

#include <nccl.h>

#include <optional>
#include <string>

namespace distbench::nccl {

ncclDataType_t nccl_dtype(DType t);
// NCCL's operator; nullopt for the bitwise operators, which NCCL does not have.
std::optional<ncclRedOp_t> nccl_op(ReduceOp op);
// Why NCCL cannot run collective `c` on `t` with `op` (the operator matters for reductions only); nullopt if it can.
std::optional<std::string> nccl_unsupported(Collective c, DType t, ReduceOp op);

}  // namespace distbench::nccl
