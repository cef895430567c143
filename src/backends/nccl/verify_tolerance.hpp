// How far a result may be from the exact expected value and still count as right.
//
// Everything NCCL computes on our patterns is exact (small integers) except avg on floating-point types: NCCL
// multiplies every input by 1/n before summing (a pre-multiplied sum), and 1/n is not exact for most n, so each
// product and each partial sum may round. For avg on float16 / bfloat16 / float32 / float64 we therefore accept
// |result - expected| <= (n + 2) * eps * M, where eps is the type's machine epsilon and M the largest input
// magnitude: n products rounded by at most eps*|x|/n each (2 eps * M together with the rounding of 1/n) plus at most
// n - 1 additions whose partial sums never exceed M (n * eps * M). An element holding the poison bytes is still wrong.
// Integer avg (sum, then integer division) and every other operator must match exactly: tolerance 0.
#pragma once

#include "core/device/dtype.hpp"
#include "core/device/pattern.hpp"
#include "core/device/reduce_op.hpp"

namespace distbench::nccl {

double verify_tolerance(DType t, ReduceOp op, const PatternParams& pattern);

}  // namespace distbench::nccl
