// Input values chosen so that every expected output is exact, and so that every bit a dtype has is exercised: the
// sign bit and the top bits of each integer width, the largest and smallest exponents and the subnormals of each
// floating-point format. The formulas are plain inline functions usable from host code and from device kernels alike.
//
// A value is a PatternValue {m, e}: for an integer dtype, m is the value itself (sign-extended from a signed dtype's
// width, zero-extended from an unsigned one's; a uint64 value is held as its bits) and e is 0; for a floating-point
// dtype the value is m * 2^e, with m a small integer and e taken from a table of exponents (PatternParams::exps).
// What each kind of pattern holds, and why every result is exact:
// - movement (no arithmetic): integers k in [0, 61) spread over the whole width (pattern_spread: neighbouring ranks
//   differ in every width, and about half the values have the top bit set); floats (k - 30) * 2^e(i).
// - minmax (min, max, band, bor, bxor: any values are exact): integers spread as movement's, k in [0, 17), with the
//   top bit set for half of the k (pattern_minmax_rank); floats (rank(k) - 8) * 2^e, the exponent following rank(k),
//   so that ranks compare values of different exponents and signs, and results reach every class.
// - sum (sum, avg): pairs of ranks add +t and -t around a common a(i), so the sum is n * a(i). Integers: a and t spread
//   over the headroom of the width (every partial sum, in any order, stays within the type's range: no overflow, and
//   an unsigned sum reaches the top bit, so that signed and unsigned division of it differ); floats: the small exact
//   amplitudes scaled by 2^e(i) (a power-of-two scaling is exact, down to the subnormals, on the 2^-149 grid of
//   float32 for example, while nothing overflows).
// - prod: one rank (i mod n) holds B(i), every other +-1 (1 for unsigned types), so every partial product is +-B.
//   Integers: B spread over the whole width; floats: an integer below 2^(precision - 1) times 2^e(i) (so that at the
//   smallest exponent B(i) is subnormal).
#pragma once

#include "core/device/collective.hpp"
#include "core/device/dtype.hpp"
#include "core/device/reduce_op.hpp"

#include <cmath>
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
  prod = 2,      // one rank holds B(i), the others +-1: products have magnitude |B(i)|
  minmax = 3,    // min / max / bitwise: a spread of values per rank
};

// The exponents a floating-point pattern cycles over (0 for integers): large, small normal, subnormal and plain.
inline constexpr int kPatternExponents = 8;
// The index period of the plain patterns (k = i mod 61 picks a, t, B and the exponent).
inline constexpr std::uint64_t kPatternCycle = 61;

struct PatternValue {
  std::int64_t m = 0;  // integers: the value (see above); floats: the significand, an integer
  int e = 0;           // floats: the value is m * 2^e; integers: 0
};

struct PatternParams {
  PatternKind kind = PatternKind::movement;
  int nranks = 1;
  // sum: a(i) spans [-amp_a, amp_a] (signed) or [amp_t, amp_t + 2 amp_a] (unsigned), t(i) spans [1, amp_t] (0: t is 0)
  std::uint64_t amp_a = 2;
  std::uint64_t amp_t = 3;
  bool is_signed = true;
  int bits = 0;                      // integer dtypes: their width (8, 32, 64); 0 for floating point
  int min_exponent = 0;              // floating point: the exponent of the smallest subnormal (-149 for float32)
  int significand = 0;               // prod on floating point: |m| of B(i) stays below 2^significand
  int exps[kPatternExponents] = {};  // floating point: the exponents, exps[0] = 0 (each kind picks one per value)
};

// The same pattern with every exponent below the smallest normal one raised to it: no value, input or result, is
// subnormal (a CPU adds subnormals through microcode assists, many times slower: timed on them, a collective would
// be timed on its data). What the timed calls run on; the verification calls keep the subnormals.
PatternParams without_subnormals(PatternParams p);

// The pattern for one case: the kind follows the collective and operator; amplitudes shrink for large groups so
// that every partial result stays exact in `dtype`, and exponents are chosen so that no result overflows.
PatternParams make_pattern(Collective c, ReduceOp op, DType dtype, int nranks);

// 2^64 / golden ratio (odd), and a second odd multiplier, that spread a small k over 64 bits.
inline constexpr std::uint64_t kSpread = 0x9E3779B97F4A7C15ull;
inline constexpr std::uint64_t kSpreadT = 0xBF58476D1CE4E5B9ull;

// `v` (bits) as a value of the pattern's integer width: sign-extended (signed) or zero-extended (unsigned).
DISTBENCH_HD inline std::int64_t pattern_to_width(const PatternParams& p, std::uint64_t v) {
  if (p.bits == 0 || p.bits >= 64) return static_cast<std::int64_t>(v);
  const int shift = 64 - p.bits;
  if (p.is_signed) return static_cast<std::int64_t>(v << shift) >> shift;
  return static_cast<std::int64_t>(v & ((std::uint64_t{1} << p.bits) - 1));
}

// k spread over the integer width: the top bits of k * kSpread (Fibonacci hashing: the values of k in [0, 61) fall
// in distinct places of the range in every width from 8 bits, about half with the top bit set).
DISTBENCH_HD inline std::int64_t pattern_spread(const PatternParams& p, std::uint64_t k) {
  const std::uint64_t v = k * kSpread;
  return pattern_to_width(p, p.bits >= 64 ? v : v >> (64 - p.bits));
}

// minmax: k in [0, 17) reordered so that the values of three neighbouring ranks (k, k + 11, k + 22 mod 17) are
// neighbours (14 * 11 = 1 and 14 * 5 = 2 mod 17): all three below the middle, above it, or across it, so that min and
// max results have the sign (or top) bit both set and clear. rank(k) >= 8 sets the top bit (integers) or makes the
// value non-negative (floats). Bit 0 is clear in every integer value, and so in every min, max and bitwise result:
// none is the poison (host_device.cpp), whose every byte has bit 0 set.
DISTBENCH_HD inline std::uint64_t pattern_minmax_rank(std::uint64_t k) { return (k * 14) % 17; }
DISTBENCH_HD inline std::int64_t pattern_minmax_integer(const PatternParams& p, std::uint64_t k) {
  const std::uint64_t top = std::uint64_t{1} << (p.bits - 1);
  const auto spread = static_cast<std::uint64_t>(pattern_spread(p, k)) & (top - 1) & ~std::uint64_t{1};
  return pattern_to_width(p, spread | (pattern_minmax_rank(k) >= 8 ? top : 0));
}

// An integer m at element index class k: for integer dtypes as it is, for floats scaled by e(k).
DISTBENCH_HD inline PatternValue pattern_scaled(const PatternParams& p, std::int64_t m, std::uint64_t k) {
  if (p.bits != 0) return PatternValue{pattern_to_width(p, static_cast<std::uint64_t>(m)), 0};
  return PatternValue{m, p.exps[k % kPatternExponents]};
}

// The sum pattern's a(i) and t(i), as bits (two's complement for a signed a).
DISTBENCH_HD inline std::uint64_t pattern_a(const PatternParams& p, std::uint64_t k) {
  const std::uint64_t span = 2 * p.amp_a + 1;
  const std::uint64_t low = p.is_signed ? std::uint64_t{0} - p.amp_a : p.amp_t;
  return low + (k * kSpread) % span;
}
DISTBENCH_HD inline std::uint64_t pattern_t(const PatternParams& p, std::uint64_t k) {
  return p.amp_t == 0 ? 0 : 1 + (k * kSpreadT) % p.amp_t;
}

// prod: B(i) as bits (integers), or its significand (floats: |m| < 2^significand).
DISTBENCH_HD inline std::uint64_t pattern_b(const PatternParams& p, std::uint64_t k) {
  if (p.bits != 0) return static_cast<std::uint64_t>(pattern_spread(p, k));
  const auto limit = (std::uint64_t{1} << p.significand) - 1;
  return static_cast<std::uint64_t>(static_cast<std::int64_t>((k * kSpread) % (2 * limit + 1)) -
                                    static_cast<std::int64_t>(limit));
}

DISTBENCH_HD inline PatternValue pattern_input(const PatternParams& p, int rank, std::uint64_t i) {
  const auto r = static_cast<std::uint64_t>(rank);
  const auto n = static_cast<std::uint64_t>(p.nranks);
  switch (p.kind) {
    case PatternKind::movement: {
      const std::uint64_t k = (r * 31 + i * 7) % 61;
      if (p.bits != 0) return PatternValue{pattern_spread(p, k), 0};
      return PatternValue{static_cast<std::int64_t>(k) - 30, p.exps[(i % kPatternCycle) % kPatternExponents]};
    }
    case PatternKind::sum: {
      const std::uint64_t k = i % kPatternCycle;
      const std::uint64_t a = pattern_a(p, k);
      const std::uint64_t t = pattern_t(p, k);
      std::uint64_t v = a;  // the unpaired last rank of an odd group
      if (r % 2 == 0 && r + 1 < n) v = a + t;
      if (r % 2 == 1) v = a - t;
      return pattern_scaled(p, static_cast<std::int64_t>(v), k);
    }
    case PatternKind::prod: {
      const std::uint64_t k = i % kPatternCycle;
      if (r == i % n) return pattern_scaled(p, static_cast<std::int64_t>(pattern_b(p, k)), k);
      return pattern_scaled(p, (p.is_signed && (i + r) % 3 == 0) ? -1 : 1, 0);
    }
    case PatternKind::minmax: {
      const std::uint64_t k = (i * 5 + r * 11) % 17;
      if (p.bits != 0) return PatternValue{pattern_minmax_integer(p, k), 0};
      const std::uint64_t q = pattern_minmax_rank(k);
      return PatternValue{static_cast<std::int64_t>(q) - 8, p.exps[q % kPatternExponents]};
    }
  }
  return PatternValue{};
}

// Whether a < b in the dtype's order (integers signed or unsigned; floats by value).
DISTBENCH_HD inline bool pattern_less(const PatternParams& p, const PatternValue& a, const PatternValue& b) {
  if (p.bits == 0) return ldexp(static_cast<double>(a.m), a.e) < ldexp(static_cast<double>(b.m), b.e);
  if (p.is_signed) return a.m < b.m;
  return static_cast<std::uint64_t>(a.m) < static_cast<std::uint64_t>(b.m);
}

// The exact reduction over all ranks of element i.
DISTBENCH_HD inline PatternValue pattern_reduced(const PatternParams& p, ReduceOp op, std::uint64_t i) {
  const int n = p.nranks;
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: {
      // The +t/-t pairs cancel: the sum is n * a(i), the average a(i) (exact in integers and floats alike).
      const std::uint64_t k = i % kPatternCycle;
      const std::uint64_t a = pattern_a(p, k);
      const std::uint64_t sum = op == ReduceOp::avg ? a : a * static_cast<std::uint64_t>(n);
      return pattern_scaled(p, static_cast<std::int64_t>(sum), k);
    }
    case ReduceOp::prod: {
      const std::uint64_t k = i % kPatternCycle;
      std::uint64_t value = pattern_b(p, k);
      if (p.is_signed) {
        // ranks r in [0, n) with (i + r) % 3 == 0 contribute -1, except the rank that holds B
        const int first = static_cast<int>((3 - i % 3) % 3);
        int negatives = first < n ? (n - 1 - first) / 3 + 1 : 0;
        const int b_rank = static_cast<int>(i % static_cast<std::uint64_t>(n));
        if ((i + static_cast<std::uint64_t>(b_rank)) % 3 == 0) --negatives;
        if (negatives % 2 == 1) value = std::uint64_t{0} - value;
      }
      return pattern_scaled(p, static_cast<std::int64_t>(value), k);
    }
    case ReduceOp::min:
    case ReduceOp::max: {
      const int period = n < 17 ? n : 17;  // values repeat with period 17 in the rank
      PatternValue best = pattern_input(p, 0, i);
      for (int r = 1; r < period; ++r) {
        const PatternValue v = pattern_input(p, r, i);
        if (op == ReduceOp::min ? pattern_less(p, v, best) : pattern_less(p, best, v)) best = v;
      }
      return best;
    }
    case ReduceOp::band:
    case ReduceOp::bor:
    case ReduceOp::bxor: {
      std::int64_t acc = pattern_input(p, 0, i).m;
      for (int r = 1; r < n; ++r) {
        const std::int64_t v = pattern_input(p, r, i).m;
        acc = op == ReduceOp::band ? (acc & v) : op == ReduceOp::bor ? (acc | v) : (acc ^ v);
      }
      return PatternValue{acc, 0};
    }
  }
  return PatternValue{};
}

// A period of the pattern in the element index: pattern_input(p, r, i) and pattern_reduced(p, op, i) repeat with it
// for every rank and operator. Host code fills and checks one period and repeats it, instead of evaluating the
// formulas (integer divisions, a power of two) per element.
inline std::uint64_t pattern_period(const PatternParams& p) {
  switch (p.kind) {
    case PatternKind::movement:
    case PatternKind::sum: return kPatternCycle;
    case PatternKind::minmax: return 17;
    case PatternKind::prod: return 3 * kPatternCycle * static_cast<std::uint64_t>(p.nranks);  // k, i % n, (i + r) % 3
  }
  return 1;
}

// What rank `rank` of a group of `nranks` holds after `c` with call count `count` (empty: nothing defined,
// e.g. non-root ranks after reduce or gather).
std::vector<ExpectBlock> expected_blocks(Collective c, int rank, int nranks, std::size_t count, int root);

// Element j of block b.
DISTBENCH_HD inline PatternValue pattern_expected(const PatternParams& p, ReduceOp op, const ExpectBlock& b,
                                                  std::uint64_t j) {
  const std::uint64_t index = b.base_index + j;
  return b.source_rank < 0 ? pattern_reduced(p, op, index) : pattern_input(p, b.source_rank, index);
}

// A floating-point value as a double (exact: every pattern value of every dtype is a double).
DISTBENCH_HD inline double pattern_double(const PatternValue& v) { return ldexp(static_cast<double>(v.m), v.e); }

}  // namespace distbench
