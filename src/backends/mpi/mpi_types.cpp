#include "backends/mpi/mpi_types.hpp"

#include "core/device/element.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace distbench::mpi {
namespace {

using Convert = float (*)(std::uint16_t);
using Round = std::uint16_t (*)(float);

// Elementwise reduction of 16-bit floats through float: exact for the patterns distbench uses, and the
// rounding of each partial result back to 16 bits matches what a native 16-bit reduction would produce.
template <Convert to_float, Round from_float, int Which>
void reduce16(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const std::uint16_t*>(in);
  auto* b = static_cast<std::uint16_t*>(inout);
  for (int i = 0; i < *len; ++i) {
    const float x = to_float(a[i]);
    const float y = to_float(b[i]);
    float r;
    if constexpr (Which == 0) r = x + y;
    if constexpr (Which == 1) r = x * y;
    if constexpr (Which == 2) r = std::min(x, y);
    if constexpr (Which == 3) r = std::max(x, y);
    b[i] = from_float(r);
  }
}

template <Convert to_float, Round from_float>
void create_ops(MPI_Op (&ops)[4]) {
  check(MPI_Op_create(&reduce16<to_float, from_float, 0>, 1, &ops[0]), "MPI_Op_create");
  check(MPI_Op_create(&reduce16<to_float, from_float, 1>, 1, &ops[1]), "MPI_Op_create");
  check(MPI_Op_create(&reduce16<to_float, from_float, 2>, 1, &ops[2]), "MPI_Op_create");
  check(MPI_Op_create(&reduce16<to_float, from_float, 3>, 1, &ops[3]), "MPI_Op_create");
}

int op_index(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return 0;
    case ReduceOp::prod: return 1;
    case ReduceOp::min: return 2;
    case ReduceOp::max: return 3;
    default: return -1;
  }
}

}  // namespace

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int length = 0;
  MPI_Error_string(code, text.data(), &length);
  throw failure(fmt::format("{} failed: {}", what, std::string_view(text.data(), static_cast<std::size_t>(length))));
}

int checked_int(std::size_t n) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw failure(fmt::format("{} bytes of coordination data exceed what MPI can move in one call", n));
  }
  return static_cast<int>(n);
}

TypeMap::TypeMap() {
  // Two distinct 2-byte types, so that a user operator can never be applied to the wrong 16-bit format.
  check(MPI_Type_contiguous(2, MPI_BYTE, &half_), "MPI_Type_contiguous");
  check(MPI_Type_commit(&half_), "MPI_Type_commit");
  check(MPI_Type_contiguous(2, MPI_BYTE, &bfloat16_), "MPI_Type_contiguous");
  check(MPI_Type_commit(&bfloat16_), "MPI_Type_commit");
  create_ops<half_to_float, float_to_half>(half_ops_);
  create_ops<bfloat16_to_float, float_to_bfloat16>(bfloat16_ops_);
}

TypeMap::~TypeMap() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  for (auto* ops : {half_ops_, bfloat16_ops_}) {
    for (int i = 0; i < 4; ++i) MPI_Op_free(&ops[i]);
  }
  MPI_Type_free(&half_);
  MPI_Type_free(&bfloat16_);
}

MPI_Datatype TypeMap::datatype(DType t) const {
  switch (t) {
    case DType::int8: return MPI_INT8_T;
    case DType::uint8: return MPI_UINT8_T;
    case DType::int32: return MPI_INT32_T;
    case DType::uint32: return MPI_UINT32_T;
    case DType::int64: return MPI_INT64_T;
    case DType::uint64: return MPI_UINT64_T;
    case DType::float16: return half_;
    case DType::bfloat16: return bfloat16_;
    case DType::float32: return MPI_FLOAT;
    case DType::float64: return MPI_DOUBLE;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op TypeMap::op(DType t, ReduceOp op) const {
  if (t == DType::float16) return half_ops_[op_index(op)];
  if (t == DType::bfloat16) return bfloat16_ops_[op_index(op)];
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return MPI_SUM;
    case ReduceOp::prod: return MPI_PROD;
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
    case ReduceOp::band: return MPI_BAND;
    case ReduceOp::bor: return MPI_BOR;
    case ReduceOp::bxor: return MPI_BXOR;
  }
  return MPI_OP_NULL;
}

void divide_in_place(void* data, std::size_t count, DType t, int divisor) {
  visit_storage(t, [&]<typename T>(T) {
    auto* values = static_cast<T*>(data);
    if (t == DType::float16 || t == DType::bfloat16) {
      const bool half = t == DType::float16;
      for (std::size_t i = 0; i < count; ++i) {
        const float v = (half ? half_to_float(values[i]) : bfloat16_to_float(values[i])) / static_cast<float>(divisor);
        values[i] = static_cast<T>(half ? float_to_half(v) : float_to_bfloat16(v));
      }
    } else {
      for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<T>(values[i] / static_cast<T>(divisor));
    }
  });
}

}  // namespace distbench::mpi
