// How far a result may be from the exact expected value and still count as right.
//
// Everything NCCL computes on our patterns is exact (pattern.hpp) except avg on floating-point types: NCCL
// multiplies every input by 1/n before summing (a pre-multiplied sum), and 1/n is not exact for most n, so each
// product and each partial sum may round. The float inputs of element i are integers times 2^e(i); for avg on
// float16 / bfloat16 / float32 / float64 we therefore accept |result - expected| <= (n + 2) * eps * M * 2^e(i)
// + n * 2^min_exponent, where eps is the type's machine epsilon and M the largest input significand: n products
// rounded by at most eps*|x|/n each (2 eps * M together with the rounding of 1/n) plus at most n - 1 additions whose
// partial sums never exceed M (n * eps * M), all scaled by 2^e(i); and where a product falls in the subnormal range,
// its rounding loses at most half of the smallest subnormal (n of them at most). verify_tolerance() returns the factor
// (n + 2) * eps * M, the kernel scales it and adds the subnormal term. An element holding the poison bytes is still
// wrong.
// Integer avg (sum, then integer division) and every other operator must match exactly: tolerance 0.
#pragma once

#include "core/device/dtype.hpp"
#include "core/device/pattern.hpp"
#include "core/device/reduce_op.hpp"

namespace distbench::nccl {

double verify_tolerance(DType t, ReduceOp op, const PatternParams& pattern);

}  // namespace distbench::nccl
