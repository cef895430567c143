// The start-up record and a distribution over ranks written to JSON and read back: every figure, the ends with
// their hosts, NaN as null, and the per-rank list only where the record has one.
#include "core/report/startup_json.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace distbench {
namespace {

StartupRecord sample(int n) {
  std::vector<StartupRank> ranks;
  for (int r = 0; r < n; ++r) {
    StartupRank one{r, fmt::format("h{}", r), {}, 0.25 * r};
    for (std::size_t p = 0; p < kStartupPhases.size(); ++p) one.seconds[p] = 0.001 * static_cast<double>(p + 1) + r;
    one.seconds[0] = r == 1 ? std::nan("") : one.seconds[0];
    ranks.push_back(one);
  }
  return startup_record(ranks, 4);
}

StartupRecord round_trip(const StartupRecord& s) {
  const nlohmann::ordered_json j = startup_json(s);
  return startup_from(JsonField(j, "startup"));
}

TEST(StartupJson, EveryFigureComesBack) {
  const StartupRecord s = sample(3);
  const StartupRecord back = round_trip(s);
  ASSERT_EQ(back.phases.size(), kStartupPhases.size());
  for (std::size_t p = 0; p < kStartupPhases.size(); ++p) {
    EXPECT_EQ(back.phases[p].ranks, s.phases[p].ranks);
    EXPECT_DOUBLE_EQ(back.phases[p].median, s.phases[p].median);
    EXPECT_DOUBLE_EQ(back.phases[p].p95, s.phases[p].p95);
    ASSERT_EQ(back.phases[p].highest.size(), s.phases[p].highest.size());
    EXPECT_EQ(back.phases[p].highest[0].host, s.phases[p].highest[0].host);
  }
  EXPECT_EQ(back.phases[0].ranks, 2u);  // rank 1's launch was not measured
  EXPECT_DOUBLE_EQ(back.late.max, 0.5);
  ASSERT_EQ(back.ranks.size(), 3u);
  EXPECT_TRUE(std::isnan(back.ranks[1].seconds[0]));
  EXPECT_DOUBLE_EQ(back.ranks[2].seconds[kStartupTotal], s.ranks[2].seconds[kStartupTotal]);
  EXPECT_DOUBLE_EQ(back.ranks[2].late_s, 0.5);
}

TEST(StartupJson, AboveTheListNoRanksAndNotMeasuredIsNull) {
  const nlohmann::ordered_json j = startup_json(sample(5));
  EXPECT_TRUE(j.at("ranks").is_null());
  EXPECT_TRUE(round_trip(sample(5)).ranks.empty());
  EXPECT_TRUE(startup_json(StartupRecord{}).is_null());
  EXPECT_FALSE(round_trip(StartupRecord{}).measured());
}

TEST(StartupJson, AMissingPhaseIsMalformed) {
  nlohmann::ordered_json j = startup_json(sample(2));
  j["phases"].erase("connect_s");
  EXPECT_ANY_THROW(startup_from(JsonField(j, "startup")));
}

}  // namespace
}  // namespace distbench
