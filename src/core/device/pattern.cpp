#include "core/device/pattern.hpp"

#include <array>
#include <utility>

namespace distbench {
namespace {

// Largest magnitude that every partial result may reach without rounding (floats) or wrap-around (8-bit integers,
// where avg divides the wrapped sum).
double headroom(DType t) {
  switch (t) {
    case DType::int8: return 127.0;
    case DType::uint8: return 255.0;
    case DType::int32: return 2147483647.0;
    case DType::uint32: return 4294967295.0;
    default: return exact_integer_limit(t);
  }
}

PatternKind kind_for(Collective c, ReduceOp op) {
  if (!is_reduction(c)) return PatternKind::movement;
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return PatternKind::sum;
    case ReduceOp::prod: return PatternKind::prod;
    default: return PatternKind::minmax;
  }
}

}  // namespace

PatternParams make_pattern(Collective c, ReduceOp op, DType dtype, int nranks) {
  PatternParams p;
  p.kind = kind_for(c, op);
  p.nranks = nranks;
  p.is_signed = is_signed(dtype);
  if (p.kind != PatternKind::sum) return p;
  // Amplitudes from widest to narrowest; the first whose worst partial sum fits is used.
  constexpr std::array<std::pair<int, int>, 3> kAmplitudes = {{{2, 3}, {1, 1}, {0, 1}}};
  for (const auto& [a, t] : kAmplitudes) {
    p.amp_a = a;
    p.amp_t = t;
    const double largest = p.is_signed ? a + t : 2.0 * t + 2.0 * a;
    if (largest * nranks <= headroom(dtype)) break;
  }
  return p;
}

std::vector<ExpectBlock> expected_blocks(Collective c, int rank, int nranks, std::size_t count, int root) {
  std::vector<ExpectBlock> blocks;
  traits(c).expected(count, static_cast<std::uint64_t>(nranks), static_cast<std::uint64_t>(rank), root, blocks);
  return blocks;
}

}  // namespace distbench
