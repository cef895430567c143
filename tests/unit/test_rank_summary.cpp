// distribution_over_ranks(): quantiles over ranks as numpy's default, NaN ranks left out, the ends named with their
// ranks and hosts, and a summary whose size does not grow with the ranks.
#include "core/measure/rank_summary.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace distbench {
namespace {

TEST(RankSummary, QuantilesAndEndsOfTenRanks) {
  // rank r's value is 10 - r: rank 9 the lowest, rank 0 the highest
  std::vector<double> v;
  std::vector<std::string> hosts;
  for (int r = 0; r < 10; ++r) {
    v.push_back(10 - r);
    hosts.push_back(std::string("h").append(std::to_string(r / 4)));  // not "h" + ...: GCC 12 -Wrestrict false alarm
  }
  const RankDistribution d = distribution_over_ranks(v, hosts, 2);
  EXPECT_EQ(d.ranks, 10u);
  EXPECT_EQ(d.min, 1);
  EXPECT_EQ(d.max, 10);
  EXPECT_DOUBLE_EQ(d.median, 5.5);
  EXPECT_DOUBLE_EQ(d.p25, 3.25);  // numpy.percentile(range(1, 11), 25)
  EXPECT_DOUBLE_EQ(d.p95, 9.55);
  EXPECT_DOUBLE_EQ(d.p05, 1.45);
  EXPECT_DOUBLE_EQ(d.mean, 5.5);
  ASSERT_EQ(d.highest.size(), 2u);
  EXPECT_EQ(d.highest[0].rank, 0);
  EXPECT_EQ(d.highest[0].host, "h0");
  EXPECT_EQ(d.highest[0].value, 10);
  EXPECT_EQ(d.highest[1].rank, 1);
  ASSERT_EQ(d.lowest.size(), 2u);
  EXPECT_EQ(d.lowest[0].rank, 9);
  EXPECT_EQ(d.lowest[0].host, "h2");
  EXPECT_EQ(d.lowest[1].rank, 8);
}

TEST(RankSummary, NotMeasuredRanksAreLeftOutAndExplicitRanksKept) {
  const std::vector<double> v = {std::nan(""), 2, 7};
  const std::vector<int> ranks = {40, 41, 42};
  const RankDistribution d = distribution_over_ranks(v, ranks, {}, 3);
  EXPECT_EQ(d.ranks, 2u);
  EXPECT_EQ(d.min, 2);
  ASSERT_EQ(d.highest.size(), 2u);
  EXPECT_EQ(d.highest[0].rank, 42);
  EXPECT_EQ(d.highest[0].host, "");
  EXPECT_EQ(d.lowest[0].rank, 41);
}

TEST(RankSummary, TiesNameTheLowerRankFirstAtBothEnds) {
  const std::vector<double> v = {5, 5, 5, 5};
  const RankDistribution d = distribution_over_ranks(v, {}, 2);
  EXPECT_EQ(d.lowest[0].rank, 0);
  EXPECT_EQ(d.lowest[1].rank, 1);
  EXPECT_EQ(d.highest[0].rank, 2);  // the two kept at the high end are the last two in order, lower rank first
  EXPECT_EQ(d.highest[1].rank, 3);
}

TEST(RankSummary, NoRanksIsEmpty) {
  const RankDistribution d = distribution_over_ranks({}, {}, 3);
  EXPECT_EQ(d.ranks, 0u);
  EXPECT_TRUE(d.highest.empty());
  EXPECT_TRUE(d.lowest.empty());
}

TEST(RankSummary, SizeDoesNotGrowWithRanks) {
  std::vector<double> v(100000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7919) % v.size());
  const RankDistribution d = distribution_over_ranks(v, {}, 3);
  EXPECT_EQ(d.ranks, v.size());
  EXPECT_EQ(d.highest.size(), 3u);
  EXPECT_EQ(d.lowest.size(), 3u);
  EXPECT_EQ(d.max, 99999);
  EXPECT_EQ(d.min, 0);
}

}  // namespace
}  // namespace distbench
