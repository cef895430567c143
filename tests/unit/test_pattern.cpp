// The claim of pattern.hpp: every expected output is exact. Reducing the per-rank inputs in the dtype's own
// arithmetic, in any order, gives exactly pattern_reduced() converted to the dtype. float16 and bfloat16 round every
// partial result to their format; integers wrap around in their width, and integer avg is the wrapped sum divided
// by n with C++ integer division.
#include "core/device/pattern.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace distbench {
namespace {

constexpr std::uint64_t kIndices = 200;  // elements 0..kIndices checked per case

// Rounds a float to a format with `Dropped` fewer significand bits, to nearest even, through the float's bits.
// float16 (10 stored bits) drops 13 and must stay in its normal range; bfloat16 (7 stored bits) drops 16.
template <int Dropped>
float round_to_narrow(float x) {
  if constexpr (Dropped == 13) {
    const float magnitude = std::fabs(x);
    if (magnitude != 0 && (magnitude < 0x1p-14f || magnitude > 65504.0f)) return NAN;  // subnormal or overflow
  }
  auto bits = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t lowest_kept = (bits >> Dropped) & 1u;
  bits += ((1u << (Dropped - 1)) - 1) + lowest_kept;
  bits &= ~((1u << Dropped) - 1);
  return std::bit_cast<float>(bits);
}

TEST(PatternRounding, HelperRoundsToNearestEven) {
  EXPECT_EQ(round_to_narrow<16>(257.0f), 256.0f);  // bfloat16: 257 is a tie between 256 and 258, 256 is even
  EXPECT_EQ(round_to_narrow<16>(259.0f), 260.0f);  // tie between 258 and 260, 260 is even
  EXPECT_EQ(round_to_narrow<16>(256.0f), 256.0f);
  EXPECT_EQ(round_to_narrow<16>(-3.0f), -3.0f);
  EXPECT_EQ(round_to_narrow<13>(2049.0f), 2048.0f);  // float16: 2049 is a tie, 2048 is even
  EXPECT_EQ(round_to_narrow<13>(2051.0f), 2052.0f);
  EXPECT_EQ(round_to_narrow<13>(2050.0f), 2050.0f);
  EXPECT_TRUE(std::isnan(round_to_narrow<13>(70000.0f)));
}

// Arithmetic of one dtype. V is the value type; from() converts a mathematical integer to the dtype.
template <typename T>
struct IntArith {
  using V = T;
  using U = std::make_unsigned_t<T>;
  static V from(std::int64_t x) { return static_cast<T>(x); }  // modulo 2^bits (C++20)
  static V add(V a, V b) { return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b))); }
  static V mul(V a, V b) { return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b))); }
  static V avg(V sum, int n) {
    if constexpr (std::is_signed_v<T>) return static_cast<T>(static_cast<std::int64_t>(sum) / n);
    return static_cast<T>(static_cast<std::uint64_t>(sum) / static_cast<std::uint64_t>(n));
  }
  static V band(V a, V b) { return static_cast<T>(a & b); }
  static V bor(V a, V b) { return static_cast<T>(a | b); }
  static V bxor(V a, V b) { return static_cast<T>(a ^ b); }
};

template <typename T>
struct FloatArith {
  using V = T;
  static V from(std::int64_t x) { return static_cast<T>(x); }
  static V add(V a, V b) { return a + b; }
  static V mul(V a, V b) { return a * b; }
  static V avg(V sum, int n) { return sum / static_cast<T>(n); }
};

// float16 and bfloat16 values held in a float, rounded after every operation. The operands are values of the
// narrow format, so the float result of +, * and / before rounding is exact for the magnitudes in these patterns.
template <int Dropped>
struct NarrowArith {
  using V = float;
  static V from(std::int64_t x) { return round_to_narrow<Dropped>(static_cast<float>(x)); }
  static V add(V a, V b) { return round_to_narrow<Dropped>(a + b); }
  static V mul(V a, V b) { return round_to_narrow<Dropped>(a * b); }
  static V avg(V sum, int n) { return round_to_narrow<Dropped>(sum / static_cast<float>(n)); }
};

template <typename A>
typename A::V combine(ReduceOp op, typename A::V a, typename A::V b) {
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return A::add(a, b);
    case ReduceOp::prod: return A::mul(a, b);
    case ReduceOp::min: return std::min(a, b);
    case ReduceOp::max: return std::max(a, b);
    case ReduceOp::band:
    case ReduceOp::bor:
    case ReduceOp::bxor:
      if constexpr (requires { A::band(a, b); }) {
        return op == ReduceOp::band ? A::band(a, b) : op == ReduceOp::bor ? A::bor(a, b) : A::bxor(a, b);
      }
      break;
  }
  ADD_FAILURE() << "operator " << name(op) << " applied to a floating dtype";
  return a;
}

template <typename V>
V tree(const std::vector<V>& xs, std::size_t lo, std::size_t hi, const std::function<V(V, V)>& f) {
  if (hi - lo == 1) return xs[lo];
  const std::size_t mid = lo + (hi - lo) / 2;
  return f(tree(xs, lo, mid, f), tree(xs, mid, hi, f));
}

// ring_from_middle: a ring that starts elsewhere; evens_then_odds: every +t of the sum pattern before any -t, the
// largest partial sums an order can reach.
enum class Order { sequential, reversed, tree, ring_from_middle, evens_then_odds };
constexpr Order kOrders[] = {Order::sequential, Order::reversed, Order::tree, Order::ring_from_middle,
                             Order::evens_then_odds};
const char* name(Order o) {
  switch (o) {
    case Order::sequential: return "sequential";
    case Order::reversed: return "reversed";
    case Order::tree: return "pairwise tree";
    case Order::ring_from_middle: return "ring from n/2";
    case Order::evens_then_odds: return "even ranks, then odd ranks";
  }
  return "?";
}

template <typename V>
V reduce_in_order(const std::vector<V>& xs, Order order, const std::function<V(V, V)>& f) {
  const std::size_t n = xs.size();
  if (order == Order::tree) return tree(xs, 0, n, f);
  if (order == Order::evens_then_odds) {
    V acc = xs[0];
    for (std::size_t r = 2; r < n; r += 2) acc = f(acc, xs[r]);
    for (std::size_t r = 1; r < n; r += 2) acc = f(acc, xs[r]);
    return acc;
  }
  V acc = order == Order::reversed ? xs[n - 1] : order == Order::ring_from_middle ? xs[n / 2] : xs[0];
  for (std::size_t k = 1; k < n; ++k) {
    const std::size_t r = order == Order::reversed ? n - 1 - k : order == Order::ring_from_middle ? (n / 2 + k) % n : k;
    acc = f(acc, xs[r]);
  }
  return acc;
}

// Counts mismatches of one (dtype, op, n) case over all indices and orders; reports the first few.
template <typename A>
int check_reduction(DType dtype, ReduceOp op, int n, int& reported) {
  using V = typename A::V;
  const PatternParams p = make_pattern(Collective::allreduce, op, dtype, n);
  const std::function<V(V, V)> f = [op](V a, V b) { return combine<A>(op, a, b); };
  int failures = 0;
  std::vector<V> inputs(static_cast<std::size_t>(n));
  for (std::uint64_t i = 0; i <= kIndices; ++i) {
    for (int r = 0; r < n; ++r) inputs[static_cast<std::size_t>(r)] = A::from(pattern_input(p, r, i));
    const V expected = A::from(pattern_reduced(p, op, i));
    for (Order order : kOrders) {
      V got = reduce_in_order(inputs, order, f);
      if (op == ReduceOp::avg) got = A::avg(got, n);
      if (got == expected) continue;  // NaN (a float16 overflow) never compares equal
      ++failures;
      if (reported++ < 20) {
        ADD_FAILURE() << name(dtype) << " " << name(op) << " n=" << n << " i=" << i << " " << name(order) << ": got "
                      << +got << ", expected " << +expected << " (amp_a=" << p.amp_a << " amp_t=" << p.amp_t << ")";
      }
    }
  }
  return failures;
}

template <typename A>
int check_dtype(DType dtype, const std::vector<int>& group_sizes, int& reported) {
  int failures = 0;
  for (ReduceOp op : all_reduce_ops()) {
    if (!defined_for(op, dtype)) continue;
    for (int n : group_sizes) failures += check_reduction<A>(dtype, op, n, reported);
  }
  return failures;
}

// Calls f.template operator()<Arith>(dtype) with the arithmetic of `dtype`.
template <typename F>
auto with_arith(DType dtype, F&& f) {
  switch (dtype) {
    case DType::int8: return f.template operator()<IntArith<std::int8_t>>(dtype);
    case DType::uint8: return f.template operator()<IntArith<std::uint8_t>>(dtype);
    case DType::int32: return f.template operator()<IntArith<std::int32_t>>(dtype);
    case DType::uint32: return f.template operator()<IntArith<std::uint32_t>>(dtype);
    case DType::int64: return f.template operator()<IntArith<std::int64_t>>(dtype);
    case DType::uint64: return f.template operator()<IntArith<std::uint64_t>>(dtype);
    case DType::float16: return f.template operator()<NarrowArith<13>>(dtype);
    case DType::bfloat16: return f.template operator()<NarrowArith<16>>(dtype);
    case DType::float32: return f.template operator()<FloatArith<float>>(dtype);
    case DType::float64: return f.template operator()<FloatArith<double>>(dtype);
  }
  return f.template operator()<FloatArith<double>>(dtype);
}

std::vector<int> one_to(int last) {
  std::vector<int> sizes;
  for (int n = 1; n <= last; ++n) sizes.push_back(n);
  return sizes;
}

TEST(Pattern, ReductionsAreExactInEveryDtypeUpTo64Ranks) {
  int reported = 0;
  for (DType dtype : all_dtypes()) {
    const int failures =
        with_arith(dtype, [&]<typename A>(DType t) { return check_dtype<A>(t, one_to(64), reported); });
    EXPECT_EQ(failures, 0) << name(dtype);
  }
}

TEST(Pattern, ReductionsAreExactForLargeGroupsInFloat32AndInt32) {
  int reported = 0;
  for (DType dtype : {DType::float32, DType::int32}) {
    const std::vector<int> sizes = {100, 128, 255, 256, 1000, 1024};
    const int failures = with_arith(dtype, [&]<typename A>(DType t) { return check_dtype<A>(t, sizes, reported); });
    EXPECT_EQ(failures, 0) << name(dtype);
  }
}

// pattern_reduced() itself, against a plain reduction of the inputs as 64-bit integers.
TEST(Pattern, ReducedMatchesTheMathematicalReduction) {
  for (ReduceOp op : all_reduce_ops()) {
    for (int n : {1, 2, 3, 5, 16, 17, 18, 33, 64, 100}) {
      for (bool is_signed : {true, false}) {
        PatternParams p = make_pattern(Collective::allreduce, op, is_signed ? DType::int64 : DType::uint64, n);
        for (std::uint64_t i = 0; i <= kIndices; ++i) {
          std::int64_t acc = pattern_input(p, 0, i);
          for (int r = 1; r < n; ++r) {
            const std::int64_t v = pattern_input(p, r, i);
            switch (op) {
              case ReduceOp::sum:
              case ReduceOp::avg: acc += v; break;
              case ReduceOp::prod: acc *= v; break;
              case ReduceOp::min: acc = std::min(acc, v); break;
              case ReduceOp::max: acc = std::max(acc, v); break;
              case ReduceOp::band: acc &= v; break;
              case ReduceOp::bor: acc |= v; break;
              case ReduceOp::bxor: acc ^= v; break;
            }
          }
          if (op == ReduceOp::avg) {
            ASSERT_EQ(acc % n, 0) << "the sum is a multiple of n";
            acc /= n;
          }
          ASSERT_EQ(pattern_reduced(p, op, i), acc) << name(op) << " n=" << n << " i=" << i << " signed=" << is_signed;
        }
      }
    }
  }
}

// Host fill and check repeat one period of the pattern: the period must hold for every input and every reduction,
// for every kind of pattern, amplitude (dtype) and group size.
TEST(Pattern, InputsAndReductionsRepeatWithThePatternPeriod) {
  for (Collective c : {Collective::allreduce, Collective::allgather}) {
    for (ReduceOp op : all_reduce_ops()) {
      for (DType dtype : all_dtypes()) {
        if (!defined_for(op, dtype)) continue;
        for (int n = 1; n <= 70; ++n) {
          const PatternParams p = make_pattern(c, op, dtype, n);
          const std::uint64_t period = pattern_period(p);
          for (std::uint64_t i = 0; i < 2 * period + 5; ++i) {
            for (int r = 0; r < n; ++r) {
              ASSERT_EQ(pattern_input(p, r, i), pattern_input(p, r, i + period))
                  << name(c) << " " << name(op) << " " << name(dtype) << " n=" << n << " r=" << r << " i=" << i;
            }
            if (!is_reduction(c)) continue;  // data movement checks inputs only
            ASSERT_EQ(pattern_reduced(p, op, i), pattern_reduced(p, op, i + 3 * period))
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
}

// Converts to the dtype and back; equal to the input only when the value is exactly representable.
template <typename A>
bool representable(std::int64_t v) {
  return static_cast<long double>(A::from(v)) == static_cast<long double>(v);
}

TEST(Pattern, InputsAreExactlyRepresentableInEveryDtype) {
  for (DType dtype : all_dtypes()) {
    for (Collective c : {Collective::allgather, Collective::allreduce}) {
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::max}) {
        const PatternParams p = make_pattern(c, op, dtype, 256);
        int bad = 0;
        for (int r = 0; r < 256; ++r) {
          for (std::uint64_t i = 0; i <= kIndices; ++i) {
            const std::int64_t v = pattern_input(p, r, i);
            if (!with_arith(dtype, [v]<typename A>(DType) { return representable<A>(v); })) ++bad;
            if (!p.is_signed && v < 0) ++bad;
          }
        }
        EXPECT_EQ(bad, 0) << name(dtype) << " " << name(c) << " " << name(op);
      }
    }
  }
}

TEST(Pattern, MovementValuesNameTheirSourceWithinRange) {
  const PatternParams s = make_pattern(Collective::alltoall, ReduceOp::sum, DType::int8, 8);
  const PatternParams u = make_pattern(Collective::alltoall, ReduceOp::sum, DType::uint8, 8);
  EXPECT_EQ(pattern_input(s, 0, 0), -30);
  EXPECT_EQ(pattern_input(u, 0, 0), 0);
  EXPECT_EQ(pattern_input(u, 1, 0), 31);
  EXPECT_EQ(pattern_input(u, 0, 1), 7);
  EXPECT_EQ(pattern_input(u, 2, 3), (2 * 31 + 3 * 7) % 61);
  // Neighbouring ranks differ at every index, so a block from the wrong source is caught.
  for (int r = 0; r < 64; ++r) {
    for (std::uint64_t i = 0; i <= kIndices; ++i) EXPECT_NE(pattern_input(u, r, i), pattern_input(u, r + 1, i));
  }
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
    EXPECT_EQ(pattern_expected(p, ReduceOp::sum, reduced, j), pattern_reduced(p, ReduceOp::sum, 8 + j));
    EXPECT_EQ(pattern_expected(p, ReduceOp::sum, copied, j), pattern_input(p, 3, 12 + j));
  }
}

}  // namespace
}  // namespace distbench
