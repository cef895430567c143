// Mapping of distbench dtypes and operators onto MPI, including user-defined operators for the 16-bit floats.
#pragma once

#include "core/device/dtype.hpp"
#include "core/device/reduce_op.hpp"

#include <mpi.h>

#include <cstddef>
#include <string>

namespace distbench::mpi {

// Throws Error(failure) naming the MPI call and the MPI error text when `code` is not MPI_SUCCESS.
void check(int code, const char* what);

// `n` bytes of coordination data as MPI's int count; throws Error(failure) past INT_MAX.
int checked_int(std::size_t n);

// MPI's datatypes and operators for distbench's, created once per process (user types and operators are freed
// when the owning backend goes away).
class TypeMap {
 public:
  TypeMap();
  ~TypeMap();
  TypeMap(const TypeMap&) = delete;
  TypeMap& operator=(const TypeMap&) = delete;

  MPI_Datatype datatype(DType t) const;
  // The MPI operator; avg maps to MPI_SUM (the caller divides by the group size afterwards).
  MPI_Op op(DType t, ReduceOp op) const;

 private:
  MPI_Datatype half_ = MPI_DATATYPE_NULL;
  MPI_Datatype bfloat16_ = MPI_DATATYPE_NULL;
  MPI_Op half_ops_[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};  // sum prod min max
  MPI_Op bfloat16_ops_[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
};

// Divides each of `count` elements at `data` by `divisor` in place (the second half of avg).
void divide_in_place(void* data, std::size_t count, DType t, int divisor);

}  // namespace distbench::mpi
