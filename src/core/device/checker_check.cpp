#include "core/device/checker_check.hpp"

#include "core/device/pattern.hpp"
#include "core/error.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace distbench {
namespace {

// Result elements a check aims at: enough for a few periods of every pattern, cheap on any device.
constexpr std::size_t kCheckerElements = 256;

// The expected blocks of `rank`, by offset.
std::vector<ExpectBlock> sorted_blocks(const CheckSpec& spec, int rank) {
  auto blocks = expected_blocks(spec.collective, rank, spec.pattern.nranks, spec.call_count, spec.root);
  std::sort(blocks.begin(), blocks.end(), [](const auto& l, const auto& r) { return l.offset < r.offset; });
  return blocks;
}

// The elements to corrupt: the first and last of the expected blocks and one drawn between them (distinct ones;
// fewer when the blocks hold fewer than 3 elements).
std::vector<std::uint64_t> corrupted_indices(const std::vector<ExpectBlock>& blocks, std::uint64_t seed) {
  std::uint64_t total = 0;
  for (const auto& b : blocks) total += b.count;
  if (total == 0) return {};
  // the k-th element of the blocks (0-based) as an index into the result
  const auto element = [&blocks](std::uint64_t k) {
    for (const auto& b : blocks) {
      if (k < b.count) return b.offset + k;
      k -= b.count;
    }
    return std::uint64_t{0};
  };
  std::vector<std::uint64_t> out{element(0)};
  if (total >= 3) {
    std::mt19937_64 rng(seed);
    out.push_back(element(std::uniform_int_distribution<std::uint64_t>(1, total - 2)(rng)));
  }
  if (total >= 2) out.push_back(element(total - 1));
  return out;
}

// How many of `indices` lie in `blocks`.
std::uint64_t inside(const std::vector<ExpectBlock>& blocks, const std::vector<std::uint64_t>& indices) {
  std::uint64_t n = 0;
  for (std::uint64_t i : indices) {
    const auto holds = [i](const ExpectBlock& b) { return i >= b.offset && i < b.offset + b.count; };
    n += std::any_of(blocks.begin(), blocks.end(), holds) ? 1 : 0;
  }
  return n;
}

}  // namespace

std::uint64_t corrupted_bits(DType t, std::uint64_t bits) {
  const unsigned width = static_cast<unsigned>(8 * size_of(t));
  if (is_integer(t)) return bits ^ (std::uint64_t{1} << (width - 1));
  // The two top exponent bits are the two below the sign in every floating-point format here.
  const std::uint64_t top = std::uint64_t{1} << (width - 2);
  const std::uint64_t both = top | (top >> 1);
  return (bits & both) == both ? bits & ~top : bits | both;
}

void corrupt_element(DType t, void* element) {
  std::uint64_t bits = 0;  // little-endian: the element's bytes are the low bytes
  std::memcpy(&bits, element, size_of(t));
  bits = corrupted_bits(t, bits);
  std::memcpy(element, &bits, size_of(t));
}

std::size_t checker_call_count(Collective c, int nranks) {
  std::size_t count = std::max<std::size_t>(call_count(c, kCheckerElements, nranks), 2);
  return count + count % 2;
}

void check_checker(Device& device, const CheckerCase& c, std::uint64_t seed) {
  const std::size_t count = checker_call_count(c.collective, c.nranks);
  const CheckSpec spec{make_pattern(c.collective, c.op, c.dtype, c.nranks), c.op, c.collective, count, c.rank, c.rank};
  const std::size_t elements = message_elements(c.collective, count, c.nranks);
  const std::unique_ptr<Buffer> buffer = device.allocate(elements * size_of(c.dtype));
  const std::vector<std::uint64_t> indices = corrupted_indices(sorted_blocks(spec, c.rank), seed);
  std::uint64_t corrupted = 0;  // over the buffer's parts (a process driving several GPUs: ranks rank, rank + 1, ...)
  for (int p = 0; p < buffer->parts(); ++p) corrupted += inside(sorted_blocks(spec, c.rank + p), indices);
  device.fill_expected({buffer.get(), 0}, c.dtype, spec, indices);
  const std::uint64_t counted = device.count_wrong({buffer.get(), 0}, c.dtype, spec);
  if (counted == corrupted) return;
  const std::string op = is_reduction(c.collective) ? fmt::format(" {}", name(c.op)) : "";
  throw failure(fmt::format(
      "the checker counted {} of {} corrupted elements in a {} block: {}{} of {} elements on rank {} of {}, elements "
      "{} corrupted; its counts of wrong elements cannot be trusted, so nothing was measured",
      counted, corrupted, name(c.dtype), name(c.collective), op, elements, c.rank, c.nranks, fmt::join(indices, ", ")));
}

}  // namespace distbench
