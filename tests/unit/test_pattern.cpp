// The claims of pattern.hpp: every expected output is exact, and the patterns reach every bit a dtype has. Each value
// is read back from its stored bits (element.hpp's encoding) by decoders of this file's own, reduced by brute force in
// __int128 (integers) or long double (floats, exact for these magnitudes), every partial result of several orders
// checked representable in the dtype, and the result compared with pattern_reduced().
#include "core/device/element.hpp"
#include "core/device/pattern.hpp"
#include "tests/support/sanitizers.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace distbench {
namespace {

__extension__ typedef __int128 Int;  // exact sums and products of 64-bit values

// A floating-point format as this test knows it: significand bits (hidden one included), exponent bias, stored
// exponent bits.
struct Format {
  int precision;
  int max_exponent;
  int min_normal;
};

Format format(DType t) {
  switch (t) {
    case DType::float16: return {11, 15, -14};
    case DType::bfloat16: return {8, 127, -126};
    case DType::float32: return {24, 127, -126};
    default: return {53, 1023, -1022};
  }
}
int min_subnormal(const Format& f) { return f.min_normal - (f.precision - 1); }

// A 16-bit float's value from its bits (`mantissa` stored bits, exponent bias `bias`): NaN for inf / nan.
long double decode16(std::uint16_t bits, int mantissa, int bias) {
  const int exponent = (bits >> mantissa) & ((1 << (15 - mantissa)) - 1);
  const long double fraction = bits & ((1u << mantissa) - 1u);
  if (exponent == (1 << (15 - mantissa)) - 1) return NAN;
  const long double magnitude = exponent == 0
                                    ? std::ldexp(fraction, 1 - bias - mantissa)
                                    : std::ldexp(fraction + std::ldexp(1.0L, mantissa), exponent - bias - mantissa);
  return (bits & 0x8000u) ? -magnitude : magnitude;
}

// A stored value: its raw bits (zero-extended) and its numeric value.
struct Stored {
  std::uint64_t bits = 0;
  Int integer = 0;         // integer dtypes
  long double real = 0.0;  // floating-point dtypes
};

Stored store(DType t, const PatternValue& v) {
  return visit_storage(t, [&]<typename T>(T) {
    const T s = encode_pattern<T>(t, v);
    Stored out;
    std::memcpy(&out.bits, &s, sizeof(T));
    if constexpr (std::is_integral_v<T>) out.integer = static_cast<Int>(s);
    if (t == DType::float16) {
      out.real = decode16(static_cast<std::uint16_t>(out.bits), 10, 15);
    } else if (t == DType::bfloat16) {
      out.real = decode16(static_cast<std::uint16_t>(out.bits), 7, 127);
    } else if constexpr (std::is_floating_point_v<T>) {
      out.real = s;
    }
    return out;
  });
}

Int lowest(DType t) {
  switch (t) {
    case DType::int8: return -128;
    case DType::int32: return -(Int{1} << 31);
    case DType::int64: return -(Int{1} << 63);
    default: return 0;
  }
}
Int highest(DType t) { return (Int{1} << (size_of(t) * 8 - (is_signed(t) ? 1 : 0))) - 1; }

// Whether x is a value of the format: on the grid of its significand (and of the smallest subnormal), not overflowing.
bool representable(long double x, const Format& f) {
  if (x == 0) return true;
  const long double largest = std::ldexp(2.0L - std::ldexp(1.0L, 1 - f.precision), f.max_exponent);
  if (std::isnan(x) || std::fabs(x) > largest) return false;
  int exponent = 0;
  std::frexp(x, &exponent);  // |x| in [2^(exponent-1), 2^exponent)
  const int unit = std::max(exponent - f.precision, min_subnormal(f));
  const long double steps = std::ldexp(x, -unit);
  return steps == std::trunc(steps);
}

// ring_from_middle: a ring that starts elsewhere; evens_then_odds: every +t of the sum pattern before any -t, the
// largest partial sums an order can reach.
enum class Order { sequential, reversed, tree, ring_from_middle, evens_then_odds };
constexpr Order kOrders[] = {Order::sequential, Order::reversed, Order::tree, Order::ring_from_middle,
                             Order::evens_then_odds};

std::vector<std::size_t> order_of(Order o, std::size_t n) {
  std::vector<std::size_t> out;
  switch (o) {
    case Order::sequential:
    case Order::tree:  // the tree's leaves, in order; its inner nodes are checked by tree_partials
      for (std::size_t r = 0; r < n; ++r) out.push_back(r);
      break;
    case Order::reversed:
      for (std::size_t r = n; r-- > 0;) out.push_back(r);
      break;
    case Order::ring_from_middle:
      for (std::size_t k = 0; k < n; ++k) out.push_back((n / 2 + k) % n);
      break;
    case Order::evens_then_odds:
      for (std::size_t r = 0; r < n; r += 2) out.push_back(r);
      for (std::size_t r = 1; r < n; r += 2) out.push_back(r);
      break;
  }
  return out;
}

// Every partial result of reducing xs in `order` with f, passed to `partial`; returns the result.
template <typename V>
V reduce_checked(const std::vector<V>& xs, Order order, const std::function<V(V, V)>& f,
                 const std::function<void(V)>& partial) {
  if (order == Order::tree) {
    std::function<V(std::size_t, std::size_t)> tree = [&](std::size_t lo, std::size_t hi) -> V {
      if (hi - lo == 1) return xs[lo];
      const std::size_t mid = lo + (hi - lo) / 2;
      const V v = f(tree(lo, mid), tree(mid, hi));
      partial(v);
      return v;
    };
    return tree(0, xs.size());
  }
  const auto idx = order_of(order, xs.size());
  V acc = xs[idx[0]];
  partial(acc);
  for (std::size_t k = 1; k < idx.size(); ++k) {
    acc = f(acc, xs[idx[k]]);
    partial(acc);
  }
  return acc;
}

std::function<Int(Int, Int)> int_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return [](Int a, Int b) { return a + b; };
    case ReduceOp::prod: return [](Int a, Int b) { return a * b; };
    case ReduceOp::min: return [](Int a, Int b) { return std::min(a, b); };
    case ReduceOp::max: return [](Int a, Int b) { return std::max(a, b); };
    case ReduceOp::band: return [](Int a, Int b) { return a & b; };
    case ReduceOp::bor: return [](Int a, Int b) { return a | b; };
    case ReduceOp::bxor: return [](Int a, Int b) { return a ^ b; };
  }
  return nullptr;
}

std::function<long double(long double, long double)> real_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return [](long double a, long double b) { return a + b; };
    case ReduceOp::prod: return [](long double a, long double b) { return a * b; };
    case ReduceOp::min: return [](long double a, long double b) { return std::min(a, b); };
    case ReduceOp::max: return [](long double a, long double b) { return std::max(a, b); };
    default: return nullptr;
  }
}

std::string where(DType t, ReduceOp op, int n, std::uint64_t i) {
  return fmt::format("{} {} n={} i={}", name(t), name(op), n, i);
}

// One (dtype, op, n): over two periods, the brute-force reduction of the stored inputs, in every order, has every
// partial result in the dtype's range (integers) or representable (floats), and equals the stored expected value.
int check_exact(DType t, ReduceOp op, int n, bool timed = false) {
  const PatternParams full = make_pattern(Collective::allreduce, op, t, n);
  const PatternParams p = timed ? without_subnormals(full) : full;
  const std::uint64_t indices = std::min<std::uint64_t>(2 * pattern_period(p), 400);
  int failures = 0;
  for (std::uint64_t i = 0; i < indices && failures < 5; ++i) {
    const Stored expected = store(t, pattern_reduced(p, op, i));
    if (is_integer(t)) {
      std::vector<Int> xs;
      for (int r = 0; r < n; ++r) xs.push_back(store(t, pattern_input(p, r, i)).integer);
      for (Order o : kOrders) {
        bool in_range = true;
        Int got = reduce_checked<Int>(xs, o, int_op(op), [&](Int v) { in_range &= v >= lowest(t) && v <= highest(t); });
        if (op == ReduceOp::avg) {
          if (got % n != 0) in_range = false;
          got /= n;
        }
        const bool ok = (in_range || is_bitwise(op)) && got == expected.integer;
        if (!ok && failures++ < 5) ADD_FAILURE() << where(t, op, n, i) << " order " << static_cast<int>(o);
      }
    } else {
      const Format f = format(t);
      std::vector<long double> xs;
      for (int r = 0; r < n; ++r) xs.push_back(store(t, pattern_input(p, r, i)).real);
      for (Order o : kOrders) {
        bool exact = true;
        long double got =
            reduce_checked<long double>(xs, o, real_op(op), [&](long double v) { exact &= representable(v, f); });
        if (op == ReduceOp::avg) {
          got /= n;
          exact &= representable(got, f);
        }
        const bool ok =
            exact && got == expected.real && got == static_cast<long double>(pattern_double(pattern_reduced(p, op, i)));
        if (!ok && failures++ < 5) {
          ADD_FAILURE() << where(t, op, n, i) << " order " << static_cast<int>(o) << ": got " << got << " expected "
                        << expected.real << (exact ? "" : " (a partial result is not representable)");
        }
      }
    }
  }
  return failures;
}

TEST(Pattern, ReductionsAreExactInEveryDtypeUpToSixteenRanks) {
  for (DType t : all_dtypes()) {
    for (ReduceOp op : all_reduce_ops()) {
      if (!defined_for(op, t)) continue;
      // every small group shape: one rank, pairs, an odd rank out, powers of two and between (the brute force is
      // the suite's slowest test under the sanitizers: not every n up to 16, and there only the smallest shapes)
      const std::vector<int> groups = test_support::under_sanitizers() ? std::vector<int>{1, 2, 3, 4, 5}
                                                                       : std::vector<int>{1, 2, 3, 4, 5, 7, 8, 11, 16};
      for (int n : groups) {
        EXPECT_EQ(check_exact(t, op, n), 0) << name(t) << " " << name(op) << " n=" << n;
      }
    }
  }
}

TEST(Pattern, ReductionsAreExactForLargerGroups) {
  if (test_support::under_sanitizers()) GTEST_SKIP() << test_support::kVolumeSkip;
  for (DType t : all_dtypes()) {
    for (ReduceOp op : all_reduce_ops()) {
      if (!defined_for(op, t)) continue;
      for (int n : {17, 64}) EXPECT_EQ(check_exact(t, op, n), 0) << name(t) << " " << name(op) << " n=" << n;
    }
  }
  for (DType t : {DType::float32, DType::int32, DType::uint32, DType::int64}) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::avg, ReduceOp::max, ReduceOp::prod}) {
      for (int n : {255, 1000}) EXPECT_EQ(check_exact(t, op, n), 0) << name(t) << " " << name(op) << " n=" << n;
    }
  }
}

// What the stored values of one (collective, op, dtype, n) reach, inputs and expected results together.
struct Reach {
  bool top_bit = false, top_bit_clear = false;  // integers: the width's top bit set / clear
  bool negative = false, subnormal = false;     // floats
  bool large = false, small_normal = false;     // floats: |v| >= 2^(max - 4); normal, below 2^(min + precision)
};

Reach reach(Collective c, ReduceOp op, DType t, int n, bool inputs, bool results, bool timed = false) {
  const PatternParams full = make_pattern(c, op, t, n);
  const PatternParams p = timed ? without_subnormals(full) : full;
  const std::uint64_t bits = size_of(t) * 8;
  const Format f = format(t);
  Reach out;
  const auto see = [&](const PatternValue& v) {
    const Stored s = store(t, v);
    if (is_integer(t)) {
      ((s.bits >> (bits - 1)) & 1u ? out.top_bit : out.top_bit_clear) = true;
      return;
    }
    const long double a = std::fabs(s.real);
    out.negative |= s.real < 0;
    out.subnormal |= a != 0 && a < std::ldexp(1.0L, f.min_normal);
    out.large |= a >= std::ldexp(1.0L, f.max_exponent - 4);
    out.small_normal |= a >= std::ldexp(1.0L, f.min_normal) && a < std::ldexp(1.0L, f.min_normal + f.precision);
  };
  for (std::uint64_t i = 0; i < pattern_period(p); ++i) {
    if (inputs) {
      for (int r = 0; r < n; ++r) see(pattern_input(p, r, i));
    }
    if (results && is_reduction(c)) see(pattern_reduced(p, op, i));
  }
  return out;
}

// Every bit class, for every dtype and every operator (movement: allgather), at 2 and 3 ranks: integers have values
// with the top bit set and clear among their inputs and among their results; floats have negative, subnormal, large
// and small normal values among both.
TEST(Pattern, ValuesReachEveryBitClassOfEveryDtype) {
  for (DType t : all_dtypes()) {
    for (int n : {2, 3}) {
      std::vector<std::tuple<Collective, ReduceOp>> cases = {{Collective::allgather, ReduceOp::sum}};
      for (ReduceOp op : all_reduce_ops()) {
        if (defined_for(op, t)) cases.emplace_back(Collective::allreduce, op);
      }
      for (const auto& [c, op] : cases) {
        for (bool inputs : {true, false}) {
          if (!inputs && !is_reduction(c)) continue;
          const Reach r = reach(c, op, t, n, inputs, !inputs);
          const std::string what =
              fmt::format("{} {} {} n={} {}", name(t), name(c), name(op), n, inputs ? "inputs" : "results");
          if (is_integer(t)) {
            // An unsigned sum reaches the top bit in its results (n * a(i)), not in its inputs nor in their average
            // a(i) (at most the type's largest value / n, so that no partial sum wraps around).
            const bool unsigned_sum = !is_signed(t) && (op == ReduceOp::sum || op == ReduceOp::avg);
            if (!(unsigned_sum && (inputs || op == ReduceOp::avg))) {
              EXPECT_TRUE(r.top_bit) << what;
            }
            EXPECT_TRUE(r.top_bit_clear) << what;
          } else {
            EXPECT_TRUE(r.negative) << what;
            EXPECT_TRUE(r.subnormal) << what;
            EXPECT_TRUE(r.large) << what;
            EXPECT_TRUE(r.small_normal) << what;
          }
        }
      }
    }
  }
}

// What the timed calls run on (without_subnormals): no subnormal input or result in any float dtype, every other
// class still reached, and every reduction still exact.
TEST(Pattern, TheTimedPatternHasNoSubnormalsAndStaysExact) {
  for (DType t : all_dtypes()) {
    if (is_integer(t)) continue;
    for (int n : {2, 3, 8}) {
      for (ReduceOp op : all_reduce_ops()) {
        if (!defined_for(op, t)) continue;
        for (bool inputs : {true, false}) {
          const Reach r = reach(Collective::allreduce, op, t, n, inputs, !inputs, true);
          const std::string what = fmt::format("{} {} n={} {}", name(t), name(op), n, inputs ? "inputs" : "results");
          EXPECT_FALSE(r.subnormal) << what;
          EXPECT_TRUE(r.negative) << what;
          // as the full pattern's (an average of 8 stays below 2^(emax-4))
          if (n < 8) {
            EXPECT_TRUE(r.large) << what;
          }
          EXPECT_TRUE(r.small_normal) << what;
        }
        EXPECT_EQ(check_exact(t, op, n, true), 0) << name(t) << " " << name(op) << " n=" << n;
      }
      EXPECT_FALSE(reach(Collective::allgather, ReduceOp::sum, t, n, true, false, true).subnormal) << name(t);
    }
  }
}

// The mutant at the level of values: an unsigned dtype reduced as its signed twin (same width) gives other
// min and max results, and the sum divided as signed gives another average, at 2 and 3 ranks.
TEST(Pattern, SignedAndUnsignedReductionsOfTheSameBitsDiffer) {
  const std::vector<std::pair<DType, DType>> twins = {
      {DType::uint8, DType::int8}, {DType::uint32, DType::int32}, {DType::uint64, DType::int64}};
  for (const auto& [u, s] : twins) {
    for (int n : {2, 3}) {
      for (ReduceOp op : {ReduceOp::min, ReduceOp::max, ReduceOp::avg}) {
        const PatternParams p = make_pattern(Collective::allreduce, op, u, n);
        int differ = 0;
        for (std::uint64_t i = 0; i < pattern_period(p); ++i) {
          Int as_unsigned = 0, as_signed = 0;
          for (int r = 0; r < n; ++r) {
            const PatternValue v = pattern_input(p, r, i);
            const Int x = store(u, v).integer, y = store(s, v).integer;  // the same bits, read both ways
            if (op == ReduceOp::avg) {
              as_unsigned += x;
              as_signed += y;
            } else {
              as_unsigned = r == 0 ? x : int_op(op)(as_unsigned, x);
              as_signed = r == 0 ? y : int_op(op)(as_signed, y);
            }
          }
          if (op == ReduceOp::avg) {  // the signed sum wraps in its width before the division, as MPI's would
            const Int width = Int{1} << (size_of(u) * 8);
            as_signed = as_unsigned >= width / 2 ? as_unsigned - width : as_unsigned;
            as_unsigned /= n;
            as_signed /= n;
          }
          const Int back = as_signed < 0 ? as_signed + (Int{1} << (size_of(u) * 8)) : as_signed;  // its unsigned bits
          differ += back != as_unsigned;
        }
        EXPECT_GT(differ, 0) << name(u) << " " << name(op) << " n=" << n;
      }
    }
  }
}

// The poison bytes (0xA5 in every byte, what Device::poison writes) are no input and no expected value: an element
// left unwritten never reads as right.
TEST(Pattern, NoValueIsThePoison) {
  for (DType t : all_dtypes()) {
    std::uint64_t poison = 0;
    std::memset(&poison, 0xA5, size_of(t));
    for (ReduceOp op : all_reduce_ops()) {
      if (!defined_for(op, t)) continue;
      for (Collective c : {Collective::allreduce, Collective::allgather}) {
        for (int n = 1; n <= 16; ++n) {
          const PatternParams p = make_pattern(c, op, t, n);
          int hits = 0;
          for (std::uint64_t i = 0; i < pattern_period(p); ++i) {
            for (int r = 0; r < n; ++r) hits += store(t, pattern_input(p, r, i)).bits == poison;
            if (is_reduction(c)) hits += store(t, pattern_reduced(p, op, i)).bits == poison;
          }
          EXPECT_EQ(hits, 0) << name(t) << " " << name(c) << " " << name(op) << " n=" << n;
        }
      }
    }
  }
}

bool same(const PatternValue& a, const PatternValue& b) { return a.m == b.m && a.e == b.e; }

// Host fill and check repeat one period of the pattern: the period must hold for every input and every reduction,
// for every kind of pattern, amplitude (dtype) and group size.
TEST(Pattern, InputsAndReductionsRepeatWithThePatternPeriod) {
  for (Collective c : {Collective::allreduce, Collective::allgather}) {
    for (ReduceOp op : all_reduce_ops()) {
      for (DType dtype : all_dtypes()) {
        if (!defined_for(op, dtype)) continue;
        for (int n : {1, 2, 3, 4, 5, 8, 13, 16, 17, 33, 40}) {
          const PatternParams p = make_pattern(c, op, dtype, n);
          const std::uint64_t period = pattern_period(p);
          for (std::uint64_t i = 0; i < period + 5; ++i) {
            for (int r = 0; r < n; ++r) {
              ASSERT_TRUE(same(pattern_input(p, r, i), pattern_input(p, r, i + period)))
                  << name(c) << " " << name(op) << " " << name(dtype) << " n=" << n << " r=" << r << " i=" << i;
            }
            if (!is_reduction(c)) continue;  // data movement checks inputs only
            ASSERT_TRUE(same(pattern_reduced(p, op, i), pattern_reduced(p, op, i + 3 * period)))
                << name(c) << " " << name(op) << " " << name(dtype) << " n=" << n << " i=" << i;
          }
        }
      }
    }
  }
}

TEST(Pattern, KindFollowsTheCollectiveAndOperator) {
  EXPECT_EQ(make_pattern(Collective::allgather, ReduceOp::sum, DType::float32, 4).kind, PatternKind::movement);
  EXPECT_EQ(make_pattern(Collective::sendrecv, ReduceOp::prod, DType::int8, 2).kind, PatternKind::movement);
  EXPECT_EQ(make_pattern(Collective::allreduce, ReduceOp::sum, DType::float32, 4).kind, PatternKind::sum);
  EXPECT_EQ(make_pattern(Collective::reduce, ReduceOp::avg, DType::float32, 4).kind, PatternKind::sum);
  EXPECT_EQ(make_pattern(Collective::reduce_scatter, ReduceOp::prod, DType::int32, 4).kind, PatternKind::prod);
  EXPECT_EQ(make_pattern(Collective::allreduce, ReduceOp::max, DType::int32, 4).kind, PatternKind::minmax);
  EXPECT_EQ(make_pattern(Collective::allreduce, ReduceOp::bxor, DType::uint8, 4).kind, PatternKind::minmax);
  const PatternParams p = make_pattern(Collective::allreduce, ReduceOp::sum, DType::uint32, 7);
  EXPECT_EQ(p.nranks, 7);
  EXPECT_FALSE(p.is_signed);
  EXPECT_EQ(p.bits, 32);
}

// The encoding, against bits worked out by hand: the smallest subnormals, a large power of two, wrapped integers.
TEST(Pattern, EncodingGivesTheBitsOfTheValue) {
  EXPECT_EQ(store(DType::float16, {1, -24}).bits, 0x0001u);
  EXPECT_EQ(store(DType::float16, {-3, -24}).bits, 0x8003u);
  EXPECT_EQ(store(DType::float16, {1, 15}).bits, 0x7800u);
  EXPECT_EQ(store(DType::bfloat16, {1, -133}).bits, 0x0001u);
  EXPECT_EQ(store(DType::bfloat16, {1, 127}).bits, 0x7f00u);
  EXPECT_EQ(store(DType::float32, {1, -149}).bits, 0x00000001u);
  EXPECT_EQ(store(DType::float32, {3, 126}).bits, 0x7f400000u);
  EXPECT_EQ(store(DType::float64, {1, -1074}).bits, 0x1u);
  EXPECT_EQ(store(DType::uint32, {-1, 0}).bits, 0xffffffffu);
  EXPECT_EQ(store(DType::int8, {0x180, 0}).bits, 0x80u);
  EXPECT_EQ(store(DType::uint64, {-2, 0}).bits, 0xfffffffffffffffeull);
}

TEST(Pattern, MovementValuesNameTheirSource) {
  // Neighbouring ranks hold different bits at every index, in every dtype, so a block from the wrong source is caught.
  for (DType t : all_dtypes()) {
    const PatternParams p = make_pattern(Collective::alltoall, ReduceOp::sum, t, 64);
    for (int r = 0; r < 63; ++r) {
      for (std::uint64_t i = 0; i < pattern_period(p); ++i) {
        ASSERT_NE(store(t, pattern_input(p, r, i)).bits, store(t, pattern_input(p, r + 1, i)).bits)
            << name(t) << " r=" << r << " i=" << i;
      }
    }
  }
  const PatternParams u = make_pattern(Collective::alltoall, ReduceOp::sum, DType::uint8, 8);
  EXPECT_EQ(pattern_input(u, 0, 0).m, 0);
  EXPECT_EQ(pattern_input(u, 1, 0).m, (31 * 0x9E3779B97F4A7C15ull) >> 56);  // k = 31: the top byte of k * 2^64 / phi
  const PatternParams f = make_pattern(Collective::alltoall, ReduceOp::sum, DType::float32, 8);
  EXPECT_EQ(pattern_input(f, 0, 0).m, -30);
  EXPECT_EQ(pattern_input(f, 0, 0).e, 0);
}

using Block = std::tuple<std::uint64_t, std::uint64_t, int, std::uint64_t>;  // offset, count, source, base index
std::vector<Block> blocks(Collective c, int rank) {
  std::vector<Block> out;
  for (const ExpectBlock& b : expected_blocks(c, rank, 3, 4, 1)) {
    out.emplace_back(b.offset, b.count, b.source_rank, b.base_index);
  }
  return out;
}

// Three ranks, count 4, root 1; source -1 is the reduction over all ranks.
TEST(Pattern, ExpectedBlocksAtThreeRanks) {
  using B = std::vector<Block>;
  for (int r = 0; r < 3; ++r) EXPECT_EQ(blocks(Collective::allreduce, r), (B{{0, 4, -1, 0}}));
  EXPECT_EQ(blocks(Collective::reduce_scatter, 0), (B{{0, 4, -1, 0}}));
  EXPECT_EQ(blocks(Collective::reduce_scatter, 2), (B{{0, 4, -1, 8}}));
  EXPECT_EQ(blocks(Collective::reduce, 1), (B{{0, 4, -1, 0}}));
  EXPECT_EQ(blocks(Collective::reduce, 0), B{});
  EXPECT_EQ(blocks(Collective::reduce, 2), B{});
  EXPECT_EQ(blocks(Collective::broadcast, 0), (B{{0, 4, 1, 0}}));
  EXPECT_EQ(blocks(Collective::broadcast, 1), (B{{0, 4, 1, 0}}));
  EXPECT_EQ(blocks(Collective::scatter, 0), (B{{0, 4, 1, 0}}));
  EXPECT_EQ(blocks(Collective::scatter, 2), (B{{0, 4, 1, 8}}));
  EXPECT_EQ(blocks(Collective::sendrecv, 0), (B{{0, 4, 2, 0}}));  // from the previous rank, around the ring
  EXPECT_EQ(blocks(Collective::sendrecv, 1), (B{{0, 4, 0, 0}}));
  EXPECT_EQ(blocks(Collective::sendrecv, 2), (B{{0, 4, 1, 0}}));
  const B gathered = {{0, 4, 0, 0}, {4, 4, 1, 0}, {8, 4, 2, 0}};
  for (int r = 0; r < 3; ++r) EXPECT_EQ(blocks(Collective::allgather, r), gathered);
  EXPECT_EQ(blocks(Collective::gather, 1), gathered);
  EXPECT_EQ(blocks(Collective::gather, 0), B{});
  EXPECT_EQ(blocks(Collective::alltoall, 0), (B{{0, 4, 0, 0}, {4, 4, 1, 0}, {8, 4, 2, 0}}));
  EXPECT_EQ(blocks(Collective::alltoall, 2), (B{{0, 4, 0, 8}, {4, 4, 1, 8}, {8, 4, 2, 8}}));
}

// Where blocks are defined, they tile the whole receive buffer of buffer_shape().
TEST(Pattern, ExpectedBlocksTileTheReceiveBuffer) {
  for (Collective c : all_collectives()) {
    for (int n : {1, 2, 5}) {
      for (int rank = 0; rank < n; ++rank) {
        const auto bs = expected_blocks(c, rank, n, 6, 0);
        if (bs.empty()) continue;
        std::uint64_t next = 0;
        for (const ExpectBlock& b : bs) {
          EXPECT_EQ(b.offset, next) << name(c);
          next += b.count;
        }
        EXPECT_EQ(next, buffer_shape(c, 6, n, rank).recv_count) << name(c) << " n=" << n << " rank " << rank;
      }
    }
  }
}

TEST(Pattern, ExpectedElementFollowsItsBlock) {
  const PatternParams p = make_pattern(Collective::allreduce, ReduceOp::sum, DType::float32, 4);
  const ExpectBlock reduced{0, 4, -1, 8};
  const ExpectBlock copied{4, 4, 3, 12};
  for (std::uint64_t j = 0; j < 4; ++j) {
    EXPECT_TRUE(same(pattern_expected(p, ReduceOp::sum, reduced, j), pattern_reduced(p, ReduceOp::sum, 8 + j)));
    EXPECT_TRUE(same(pattern_expected(p, ReduceOp::sum, copied, j), pattern_input(p, 3, 12 + j)));
  }
}

}  // namespace
}  // namespace distbench
