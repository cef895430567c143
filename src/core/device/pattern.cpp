#include "core/device/pattern.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <utility>

namespace distbench {
namespace {

PatternKind kind_for(Collective c, ReduceOp op) {
  if (!is_reduction(c)) return PatternKind::movement;
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return PatternKind::sum;
    case ReduceOp::prod: return PatternKind::prod;
    default: return PatternKind::minmax;
  }
}

// A floating-point format: significand bits (the hidden one included), largest and smallest normal exponents.
struct FloatFormat {
  int precision;
  int max_exponent;
  int min_normal;
};

FloatFormat format_of(DType t) {
  switch (t) {
    case DType::float16: return {11, 15, -14};
    case DType::bfloat16: return {8, 127, -126};
    case DType::float32: return {24, 127, -126};
    default: return {53, 1023, -1022};
  }
}

// Bits needed for magnitudes up to `largest`: 2^bits >= largest.
int magnitude_bits(double largest) {
  int bits = 0;
  while (static_cast<double>(std::uint64_t{1} << bits) < largest) ++bits;
  return bits;
}

// Integers: the largest value a partial sum may reach (the top of the signed or unsigned range), divided over the
// ranks: a(i) and t(i) share it, so that n inputs of at most `per_rank` each never leave the range.
void integer_sum_amplitudes(PatternParams& p) {
  const std::uint64_t limit = p.is_signed    ? (std::uint64_t{1} << (p.bits - 1)) - 1
                              : p.bits == 64 ? std::numeric_limits<std::uint64_t>::max()
                                             : (std::uint64_t{1} << p.bits) - 1;
  // 8 bits: every value and partial sum stays below the poison byte 0xA5 (165, or -91 signed: host_device.cpp), so
  // that an element left unwritten never reads as right; the top bit is still reached (128..164, or the sign).
  const std::uint64_t range = p.bits == 8 ? (p.is_signed ? 90 : 164) : limit;
  const std::uint64_t per_rank = range / static_cast<std::uint64_t>(p.nranks);
  p.amp_t = per_rank / 2;
  // signed: |a| + t <= per_rank; unsigned: t <= a <= amp_t + 2 amp_a <= per_rank (so n * a, the sum, reaches the top
  // half of the range: its top bit is set).
  p.amp_a = p.is_signed ? per_rank - p.amp_t : (per_rank - p.amp_t) / 2;
}

// Floats: the small amplitudes, from widest to narrowest; the first whose worst partial sum fits the significand.
void float_sum_amplitudes(PatternParams& p, DType dtype) {
  constexpr std::array<std::pair<int, int>, 3> kAmplitudes = {{{2, 3}, {1, 1}, {0, 1}}};
  for (const auto& [a, t] : kAmplitudes) {
    p.amp_a = static_cast<std::uint64_t>(a);
    p.amp_t = static_cast<std::uint64_t>(t);
    if (static_cast<double>(a + t) * p.nranks <= exact_integer_limit(dtype)) break;
  }
}

// The exponents a floating-point pattern cycles over, for significands of at most `bits` bits of magnitude: 0 first
// (prod's +-1 use it), the largest that cannot overflow, the smallest subnormal, the smallest normal, and between.
void float_exponents(PatternParams& p, const FloatFormat& f, int bits) {
  const int top = f.max_exponent - bits;
  const int smallest = f.min_normal - (f.precision - 1);
  p.min_exponent = smallest;
  const std::array<int, kPatternExponents> exps = {
      0, top, smallest, f.min_normal, top / 2, f.min_normal / 2, smallest + (f.precision - 1) / 2, 1};
  for (std::size_t k = 0; k < exps.size(); ++k) p.exps[k] = exps[k];
}

}  // namespace

PatternParams make_pattern(Collective c, ReduceOp op, DType dtype, int nranks) {
  PatternParams p;
  p.kind = kind_for(c, op);
  p.nranks = nranks;
  p.is_signed = is_signed(dtype);
  if (is_integer(dtype)) {
    p.bits = static_cast<int>(size_of(dtype) * 8);
    if (p.kind == PatternKind::sum) integer_sum_amplitudes(p);
    return p;
  }
  const FloatFormat f = format_of(dtype);
  if (p.kind == PatternKind::sum) float_sum_amplitudes(p, dtype);
  p.significand = f.precision - 1;
  int bits = 0;  // magnitude bits of the largest |m| (of a partial result, for sum and prod)
  switch (p.kind) {
    case PatternKind::movement: bits = 5; break;  // |k - 30| <= 30
    case PatternKind::minmax: bits = 3; break;    // |rank(k) - 8| <= 8
    case PatternKind::sum: bits = magnitude_bits(static_cast<double>(p.amp_a + p.amp_t) * nranks); break;
    case PatternKind::prod: bits = p.significand; break;  // |B| < 2^significand
  }
  float_exponents(p, f, bits);
  return p;
}

PatternParams without_subnormals(PatternParams p) {
  if (p.bits != 0) return p;
  const int min_normal = p.min_exponent + p.significand;  // the smallest subnormal is 2^(min_normal - significand)
  for (int& e : p.exps) e = std::max(e, min_normal);
  return p;
}

std::vector<ExpectBlock> expected_blocks(Collective c, int rank, int nranks, std::size_t count, int root) {
  std::vector<ExpectBlock> blocks;
  traits(c).expected(count, static_cast<std::uint64_t>(nranks), static_cast<std::uint64_t>(rank), root, blocks);
  return blocks;
}

}  // namespace distbench
