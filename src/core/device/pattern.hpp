// Input values chosen so that every expected output is exact: small integers whose sums, products, minima and
// maxima are representable without rounding in every dtype (bfloat16 included) for the group sizes we run.
// The formulas are plain inline functions usable from host code and from device kernels alike.
#pragma once

#include "core/device/collective.hpp"
#include "core/device/dtype.hpp"
#include "core/device/reduce_op.hpp"

#include <cstdint>
#include <vector>

#ifdef __CUDACC__
#define DISTBENCH_HD __host__ __device__
#else
#define DISTBENCH_HD
#endif

namespace distbench {

enum class PatternKind : int {
  movement = 0,  // data movement: the value names its source rank and index
  sum = 1,       // sum / avg: pairs of ranks add +t and -t around a common a(i), so the sum is n*a(i)
  prod = 2,      // values in {1, -1, 2}: products have magnitude at most 2
  minmax = 3,    // min / max / bitwise: a spread of small values per rank
};

struct PatternParams {
  PatternKind kind = PatternKind::movement;
  int nranks = 1;
  int amp_a = 2;  // sum: a(i) spans [-amp_a, amp_a] (signed) or [amp_t, amp_t + 2 amp_a] (unsigned)
  int amp_t = 3;  // sum: t(i) spans [1, amp_t]
  bool is_signed = true;
};

// The pattern for one case: the kind follows the collective and operator; amplitudes shrink for large groups so
// that every partial result stays exact in `dtype`.
PatternParams make_pattern(Collective c, ReduceOp op, DType dtype, int nranks);

DISTBENCH_HD inline std::int64_t pattern_input(const PatternParams& p, int rank, std::uint64_t i) {
  const auto r = static_cast<std::uint64_t>(rank);
  const auto n = static_cast<std::uint64_t>(p.nranks);
  switch (p.kind) {
    case PatternKind::movement: {
      const auto v = static_cast<std::int64_t>((r * 31 + i * 7) % 61);
      return p.is_signed ? v - 30 : v;
    }
    case PatternKind::sum: {
      const auto span_a = static_cast<std::uint64_t>(2 * p.amp_a + 1);
      const auto a = static_cast<std::int64_t>((i * 7) % span_a) + (p.is_signed ? -p.amp_a : p.amp_t);
      const auto t = p.amp_t == 0 ? 0 : static_cast<std::int64_t>(i % static_cast<std::uint64_t>(p.amp_t)) + 1;
      if (r % 2 == 0 && r + 1 < n) return a + t;
      if (r % 2 == 1) return a - t;
      return a;  // the unpaired last rank of an odd group
    }
    case PatternKind::prod: {
      if (r == i % n && (i / n) % 2 == 0) return 2;
      return (p.is_signed && (i + r) % 3 == 0) ? -1 : 1;
    }
    case PatternKind::minmax: {
      const auto v = static_cast<std::int64_t>((i * 5 + r * 11) % 17);
      return p.is_signed ? v - 8 : v;
    }
  }
  return 0;
}

// The exact reduction over all ranks of element i, as a mathematical integer (before conversion to the dtype).
DISTBENCH_HD inline std::int64_t pattern_reduced(const PatternParams& p, ReduceOp op, std::uint64_t i) {
  const int n = p.nranks;
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: {
      std::int64_t sum = 0;  // the +t/-t pairs cancel: the sum is n * a(i); computed from rank 0's pairless value
      const auto span_a = static_cast<std::uint64_t>(2 * p.amp_a + 1);
      const auto a = static_cast<std::int64_t>((i * 7) % span_a) + (p.is_signed ? -p.amp_a : p.amp_t);
      sum = a * n;
      return op == ReduceOp::avg ? sum / n : sum;
    }
    case ReduceOp::prod: {
      std::int64_t value = ((i / static_cast<std::uint64_t>(n)) % 2 == 0) ? 2 : 1;
      if (p.is_signed) {
        // ranks r in [0, n) with (i + r) % 3 == 0 contribute -1, except the rank that contributes 2
        const int first = static_cast<int>((3 - i % 3) % 3);
        int negatives = first < n ? (n - 1 - first) / 3 + 1 : 0;
        const int two_rank = static_cast<int>(i % static_cast<std::uint64_t>(n));
        if (value == 2 && (i + static_cast<std::uint64_t>(two_rank)) % 3 == 0) --negatives;
        if (negatives % 2 == 1) value = -value;
      }
      return value;
    }
    case ReduceOp::min:
    case ReduceOp::max: {
      const int period = n < 17 ? n : 17;  // values repeat with period 17 in the rank
      std::int64_t best = pattern_input(p, 0, i);
      for (int r = 1; r < period; ++r) {
        const std::int64_t v = pattern_input(p, r, i);
        best = (op == ReduceOp::min) ? (v < best ? v : best) : (v > best ? v : best);
      }
      return best;
    }
    case ReduceOp::band:
    case ReduceOp::bor:
    case ReduceOp::bxor: {
      std::int64_t acc = pattern_input(p, 0, i);
      for (int r = 1; r < n; ++r) {
        const std::int64_t v = pattern_input(p, r, i);
        acc = op == ReduceOp::band ? (acc & v) : op == ReduceOp::bor ? (acc | v) : (acc ^ v);
      }
      return acc;
    }
  }
  return 0;
}

// A period of the pattern in the element index: pattern_input(p, r, i) and pattern_reduced(p, op, i) repeat with it
// for every rank and operator. Host code fills and checks one period and repeats it, instead of evaluating the
// formulas (two integer divisions) per element.
inline std::uint64_t pattern_period(const PatternParams& p) {
  switch (p.kind) {
    case PatternKind::movement: return 61;
    case PatternKind::minmax: return 17;
    case PatternKind::sum:  // a(i) repeats every 2*amp_a + 1, t(i) every amp_t
      return static_cast<std::uint64_t>(2 * p.amp_a + 1) * static_cast<std::uint64_t>(p.amp_t > 0 ? p.amp_t : 1);
    case PatternKind::prod: return 6 * static_cast<std::uint64_t>(p.nranks);  // i % n, (i / n) % 2, (i + r) % 3
  }
  return 1;
}

// What rank `rank` of a group of `nranks` holds after `c` with call count `count` (empty: nothing defined,
// e.g. non-root ranks after reduce or gather).
std::vector<ExpectBlock> expected_blocks(Collective c, int rank, int nranks, std::size_t count, int root);

// Element i of block b as a mathematical integer.
DISTBENCH_HD inline std::int64_t pattern_expected(const PatternParams& p, ReduceOp op, const ExpectBlock& b,
                                                  std::uint64_t j) {
  const std::uint64_t index = b.base_index + j;
  return b.source_rank < 0 ? pattern_reduced(p, op, index) : pattern_input(p, b.source_rank, index);
}

}  // namespace distbench
