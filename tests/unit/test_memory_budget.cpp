// The memory check made before a run (core/device/memory_budget): buffers, the library's own, and a reserve.
#include "core/device/memory_budget.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace distbench {
namespace {

constexpr std::uint64_t GiB = 1ULL << 30;
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

TEST(MemoryBudget, SumsSaturateInsteadOfWrapping) {
  EXPECT_EQ(add_saturating(1ULL << 63, 1ULL << 63), kMax);  // issue 16: 2^63 + 2^63 wrapped to 0 and passed
  EXPECT_EQ(add_saturating(kMax, 1), kMax);
  EXPECT_EQ(add_saturating(2, 3), 5u);
}

TEST(MemoryBudget, TheReserveIsFivePercentAndAtLeast256MiB) {
  EXPECT_EQ(memory_reserve(100 * GiB), 5 * GiB);
  EXPECT_EQ(memory_reserve(1 * GiB), 256ULL << 20);
}

TEST(MemoryBudget, TheLibrarysBuffersAndTheReserveCount) {
  // issue 16: 10 GiB of buffers passed with 11.6 GiB per rank, and the run was OOM-killed (allreduce 5 GiB, np 2)
  const std::uint64_t have = 11 * GiB + 600 * (1ULL << 20);
  EXPECT_FALSE(memory_shortfall({10 * GiB, 0}, have).has_value());
  const auto why = memory_shortfall({10 * GiB, 5 * GiB / 2}, have);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("10 GiB of buffers per rank and up to 2.5 GiB more for the library's own per call"),
            std::string::npos)
      << *why;
  // the reserve alone tips it
  EXPECT_TRUE(memory_shortfall({have - (100ULL << 20), 0}, have).has_value());
  EXPECT_TRUE(memory_shortfall({kMax, 0}, have).has_value());
  EXPECT_NE(memory_shortfall({kMax, 0}, have)->find("more than 16 EiB"), std::string::npos);
  EXPECT_FALSE(memory_shortfall({kMax, kMax}, 0).has_value()) << "unknown: never refused";
}

}  // namespace
}  // namespace distbench
