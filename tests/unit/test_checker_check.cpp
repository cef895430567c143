// The checker checked (core/device/checker_check): corrupted elements move far in every dtype, the host device's
// checker counts exactly the corrupted ones for every collective, element type and operator, and each checker mutant
// (tests/support/checker_mutants.hpp) is caught with a clear error.
#include "core/device/checker_check.hpp"

#include "core/device/element.hpp"
#include "core/device/half.hpp"
#include "core/device/host_device.hpp"
#include "core/error.hpp"
#include "tests/support/checker_mutants.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace distbench {
namespace {

// The value of an element's storage bits, as a double.
double checker_decoded(DType t, std::uint64_t bits) {
  switch (t) {
    case DType::int8: return static_cast<std::int8_t>(bits);
    case DType::uint8: return static_cast<std::uint8_t>(bits);
    case DType::int32: return static_cast<std::int32_t>(bits);
    case DType::uint32: return static_cast<std::uint32_t>(bits);
    case DType::int64: return static_cast<double>(static_cast<std::int64_t>(bits));
    case DType::uint64: return static_cast<double>(bits);
    case DType::float16: return half_to_float(static_cast<std::uint16_t>(bits));
    case DType::bfloat16: return bfloat16_to_float(static_cast<std::uint16_t>(bits));
    case DType::float32: return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    case DType::float64: return std::bit_cast<double>(bits);
  }
  return 0;
}

std::uint64_t checker_storage_bits(DType t, std::int64_t v) {
  return visit_storage(t, [&]<typename T>(T) {
    const T s = encode_pattern<T>(t, PatternValue{v, 0});
    std::uint64_t bits = 0;
    std::memcpy(&bits, &s, sizeof(T));
    return bits;
  });
}

// Every value a pattern may expect moves: integers by 2^(bits-1), floats by at least 256 (or to infinity or NaN),
// so no tolerance of a check takes a corrupted element for the expected one.
TEST(CheckerCheck, CorruptionMovesEveryValueFar) {
  for (const DType t : all_dtypes()) {
    for (const std::int64_t v : {0, 1, -1, 2, -2, 3, 7, 8, 100, 255, -128, 1 << 20}) {
      const std::uint64_t bits = checker_storage_bits(t, v);
      const std::uint64_t bad = corrupted_bits(t, bits);
      ASSERT_NE(bad, bits) << name(t) << " " << v;
      if (size_of(t) < 8) {
        ASSERT_EQ(bad >> (8 * size_of(t)), 0u) << name(t) << ": bits beyond the element";
      }
      const double before = checker_decoded(t, bits), after = checker_decoded(t, bad);
      if (is_integer(t)) {
        EXPECT_NE(after, before) << name(t) << " " << v;
      } else {
        EXPECT_TRUE(std::isnan(after) || std::fabs(after - before) >= 256) << name(t) << " " << v << " -> " << after;
      }
    }
  }
  // The rule itself, on float32: 0 -> 2^65 (both top exponent bits set); 2^65 -> back to a tiny value.
  EXPECT_EQ(corrupted_bits(DType::float32, 0), 0x60000000u);
  EXPECT_EQ(corrupted_bits(DType::float32, 0x60000000u), 0x20000000u);
  EXPECT_EQ(corrupted_bits(DType::int8, 0x05), 0x85u);
}

constexpr ReduceOp kCheckerSumOnly = ReduceOp::sum;  // the operator of a collective that does not reduce

// Every case a sweep can check: the collectives, their element types and operators, several group sizes and
// every rank of the group.
template <typename F>
void for_every_checker_case(F&& f) {
  for (const Collective c : all_collectives()) {
    for (const DType t : all_dtypes()) {
      for (const ReduceOp op : is_reduction(c) ? all_reduce_ops() : std::span<const ReduceOp>(&kCheckerSumOnly, 1)) {
        if (is_reduction(c) && !defined_for(op, t)) continue;
        for (const int nranks : {1, 2, 3, 8}) {
          for (int rank = 0; rank < nranks; ++rank) f(CheckerCase{c, t, op, nranks, rank});
        }
      }
    }
  }
}

TEST(CheckerCheck, TheHostCheckerCountsExactlyTheCorruptedElements) {
  HostDevice host;
  int cases = 0;
  for_every_checker_case([&](const CheckerCase& k) {
    EXPECT_NO_THROW(check_checker(host, k, static_cast<std::uint64_t>(cases)))
        << name(k.collective) << " " << name(k.dtype) << " " << name(k.op);
    ++cases;
  });
  EXPECT_GT(cases, 1000);
  // The test's own comparison, without a mistake, passes too: the mutants below fail by their mistake alone.
  MutantCheckerDevice right(host, CheckerMutant::none);
  for_every_checker_case([&](const CheckerCase& k) { EXPECT_NO_THROW(check_checker(right, k, 7)); });
}

TEST(CheckerCheck, FillExpectedIsWhatTheCheckerExpects) {
  HostDevice host;
  const PatternParams pattern = make_pattern(Collective::allgather, ReduceOp::sum, DType::bfloat16, 3);
  const CheckSpec spec{pattern, ReduceOp::sum, Collective::allgather, 10, 0, 1};  // rank 1 of 3: 3 blocks of 10
  const auto buffer = host.allocate(30 * 2);
  host.fill_expected({buffer.get(), 0}, DType::bfloat16, spec, {});
  EXPECT_EQ(host.count_wrong({buffer.get(), 0}, DType::bfloat16, spec), 0u);
  const std::vector<std::uint64_t> corrupt = {0, 11, 29};
  host.fill_expected({buffer.get(), 0}, DType::bfloat16, spec, corrupt);
  EXPECT_EQ(host.count_wrong({buffer.get(), 0}, DType::bfloat16, spec), 3u);
}

// Each mutant miscounts in every collective: the error says how many of how many, the dtype and the case.
TEST(CheckerCheck, EveryCheckerMutantIsCaught) {
  HostDevice host;
  for (const CheckerMutant m : kCheckerMutants) {
    MutantCheckerDevice mutant(host, m);
    int missed = 0, cases = 0;
    for_every_checker_case([&](const CheckerCase& k) {
      if (k.nranks != 2) return;
      ++cases;
      try {
        check_checker(mutant, k, 1);
        ++missed;
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ExitCode::failure);
        EXPECT_EQ(std::string(e.what()).rfind("the checker counted ", 0), 0u) << e.what();
      }
    });
    EXPECT_EQ(missed, 0) << name(m) << " passed " << missed << " of " << cases << " checks";
  }
  MutantCheckerDevice skips_last(host, CheckerMutant::skips_last);
  try {
    check_checker(skips_last, CheckerCase{Collective::allreduce, DType::float32, ReduceOp::sum, 2, 0}, 1);
    FAIL() << "skips_last passed";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 64), "the checker counted 2 of 3 corrupted elements in a float32 block");
  }
}

}  // namespace
}  // namespace distbench
