#include "backends/nccl/verify_tolerance.hpp"

#include <cmath>

namespace distbench::nccl {
namespace {

// Machine epsilon (the gap between 1 and the next value) of the floating-point dtypes.
double epsilon(DType t) {
  switch (t) {
    case DType::float16: return std::ldexp(1.0, -10);
    case DType::bfloat16: return std::ldexp(1.0, -7);
    case DType::float32: return std::ldexp(1.0, -23);
    case DType::float64: return std::ldexp(1.0, -52);
    default: return 0.0;
  }
}

// Largest |input| significand of the sum pattern (pattern.hpp: a(i) +- t(i), in units of 2^e(i); floating-point
// patterns are signed).
double largest_input(const PatternParams& p) { return static_cast<double>(p.amp_a + p.amp_t); }

}  // namespace

double verify_tolerance(DType t, ReduceOp op, const PatternParams& pattern) {
  if (op != ReduceOp::avg || is_integer(t)) return 0.0;
  return (pattern.nranks + 2) * epsilon(t) * largest_input(pattern);
}

}  // namespace distbench::nccl
