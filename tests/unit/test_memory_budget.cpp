// The memory check made before a run (core/device/memory_budget): buffers, the library's own, and a reserve.
#include "core/device/memory_budget.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace distbench {
namespace {

constexpr std::uint64_t GiB = 1ULL << 30;
constexpr std::uint64_t MiB = 1ULL << 20;
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
  EXPECT_FALSE(memory_shortfall({10 * GiB, 0}, {have, 1}).has_value());
  const auto why = memory_shortfall({10 * GiB, 5 * GiB / 2}, {have, 1});
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("10 GiB of buffers per rank and up to 2.5 GiB more for the library's own per call"),
            std::string::npos)
      << *why;
  // the reserve alone tips it
  EXPECT_TRUE(memory_shortfall({have - (100ULL << 20), 0}, {have, 1}).has_value());
  EXPECT_TRUE(memory_shortfall({kMax, 0}, {have, 1}).has_value());
  EXPECT_NE(memory_shortfall({kMax, 0}, {have, 1})->find("more than 16 EiB"), std::string::npos);
  EXPECT_FALSE(memory_shortfall({kMax, kMax}, {0, 1}).has_value()) << "unknown: never refused";
  EXPECT_FALSE(memory_shortfall({kMax, kMax}, {0, 96}).has_value()) << "unknown: never refused";
}

// The reserve is kept once per memory: the ranks sharing a host divide it, each keeping its part.
TEST(MemoryBudget, TheReserveIsTakenOncePerHostNotOncePerRank) {
  // 96 ranks on a host with 22.4 GiB available: 239 MiB each; the host keeps 1.12 GiB (5 %), 12 MiB of it per rank
  const std::uint64_t host = 96 * 239 * MiB;
  const MemoryShare share{host / 96, 96};
  EXPECT_EQ(memory_reserve_share(share), (memory_reserve(host / 96 * 96) + 95) / 96);
  EXPECT_LT(memory_reserve_share(share), 12 * MiB + 1);
  // an 8 B sweep (two buffers and a little library scratch) fits: it was refused when every rank kept 256 MiB
  EXPECT_FALSE(memory_shortfall({16, 1024}, share).has_value());
  // what each rank may use is its share less its part of the reserve, to the byte
  const std::uint64_t usable = share.available - memory_reserve_share(share);
  EXPECT_FALSE(memory_shortfall({usable, 0}, share).has_value());
  const auto why = memory_shortfall({usable + 1, 0}, share);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("each of the 96 ranks sharing the memory has 239 MiB available"), std::string::npos) << *why;
  EXPECT_NE(why->find("(its part of the reserve kept once for all of them)"), std::string::npos) << *why;
  // a small host's floor of 256 MiB is divided as well: 4 ranks on 2 GiB keep 64 MiB each
  EXPECT_EQ(memory_reserve_share({512 * MiB, 4}), 64 * MiB);
  // one rank alone keeps the whole reserve, as before
  EXPECT_EQ(memory_reserve_share({100 * GiB, 1}), 5 * GiB);
  // a share whose whole would pass 2^64 saturates instead of wrapping to a small reserve
  EXPECT_EQ(memory_reserve_share({kMax / 2, 4}), (kMax / 20 + 3) / 4);
}

}  // namespace
}  // namespace distbench
