// The checker checked: Device::count_wrong, run on a known-corrupted copy of an expected result (the first, the last
// and a randomly drawn element of its expected blocks), must count exactly the elements corrupted. A checker that
// skips an element, compares only some of them, or takes a corrupted value for the expected one then fails before
// anything is measured, instead of passing every result.
#pragma once

#include "core/device/collective.hpp"
#include "core/device/device.hpp"
#include "core/device/dtype.hpp"
#include "core/device/reduce_op.hpp"

#include <cstdint>

namespace distbench {

// One check of the checker: the result `rank` of a group of `nranks` holds after `collective` (rooted ones with
// this rank as the root, so that it has a result), in `dtype`, reduced with `op`.
struct CheckerCase {
  Collective collective = Collective::allreduce;
  DType dtype = DType::float32;
  ReduceOp op = ReduceOp::sum;
  int nranks = 1;
  int rank = 0;
};

// The storage bits of a corrupted element (its size_of(t) low bytes): an integer's top bit inverted; a float's two
// top exponent bits set, or when both are set already the top one cleared. A float's magnitude thus moves by a
// factor of at least 2^8 (float16) or 2^64 (the others), farther than any tolerance of a check (NaN and infinity
// included, which equal nothing).
std::uint64_t corrupted_bits(DType t, std::uint64_t bits);
// The element at `element` (host memory, size_of(t) bytes) corrupted in place.
void corrupt_element(DType t, void* element);

// Elements of the check's result: a few hundred, at least 2 per block and an even number in each block.
std::size_t checker_call_count(Collective c, int nranks);

// Fills a small buffer of `device` with the expected result of `c`, corrupts its first, last and one random element
// (drawn with `seed`) and counts the wrong elements with device.count_wrong. Throws Error(failure) "the checker
// counted N of 3 corrupted elements in a <dtype> block: ..." unless it counted exactly the corrupted ones (3 per
// part of the buffer, fewer when the expected blocks are shorter).
void check_checker(Device& device, const CheckerCase& c, std::uint64_t seed);

}  // namespace distbench
