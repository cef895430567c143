#include "core/pattern.hpp"

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
  const auto n = static_cast<std::uint64_t>(nranks);
  const auto me = static_cast<std::uint64_t>(rank);
  std::vector<ExpectBlock> blocks;
  switch (c) {
    case Collective::allreduce: blocks.push_back({0, count, -1, 0}); break;
    case Collective::reduce_scatter: blocks.push_back({0, count, -1, me * count}); break;
    case Collective::reduce:
      if (rank == root) blocks.push_back({0, count, -1, 0});
      break;
    case Collective::broadcast: blocks.push_back({0, count, root, 0}); break;
    case Collective::scatter: blocks.push_back({0, count, root, me * count}); break;
    case Collective::sendrecv: blocks.push_back({0, count, static_cast<int>((me + n - 1) % n), 0}); break;
    case Collective::allgather:
      for (std::uint64_t r = 0; r < n; ++r) blocks.push_back({r * count, count, static_cast<int>(r), 0});
      break;
    case Collective::gather:
      if (rank == root) {
        for (std::uint64_t r = 0; r < n; ++r) blocks.push_back({r * count, count, static_cast<int>(r), 0});
      }
      break;
    case Collective::alltoall:
      for (std::uint64_t s = 0; s < n; ++s) blocks.push_back({s * count, count, static_cast<int>(s), me * count});
      break;
  }
  return blocks;
}

}  // namespace distbench
