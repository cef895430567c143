// startup_record(): one distribution per phase and of the lateness, every rank listed up to the limit and none above
// it; the header's lines name each phase's slowest rank and a rank that began late; the late_start warning.
#include "core/report/startup.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace distbench {
namespace {

std::vector<StartupRank> ranks_with(int n, int late_rank, double late_by) {
  std::vector<StartupRank> out;
  for (int r = 0; r < n; ++r) {
    StartupRank one;
    one.rank = r;
    one.host = fmt::format("node{}", r / 2);
    one.seconds.fill(0.01);
    one.seconds[2] = 0.5 + 0.01 * r;  // connect: the higher the rank, the slower
    one.seconds[kStartupTotal] = 0.56 + 0.01 * r;
    one.late_s = r == late_rank ? late_by : 0.001 * r;
    out.push_back(one);
  }
  return out;
}

TEST(Startup, EveryPhaseOverRanksAndEveryRankListedUpToTheLimit) {
  const StartupRecord s = startup_record(ranks_with(6, 5, 3.0), 6);
  ASSERT_TRUE(s.measured());
  ASSERT_EQ(s.phases.size(), kStartupPhases.size());
  EXPECT_EQ(s.phases[2].ranks, 6u);
  EXPECT_DOUBLE_EQ(s.phases[2].max, 0.55);
  EXPECT_EQ(s.phases[2].highest.front().rank, 5);
  EXPECT_EQ(s.phases[2].highest.front().host, "node2");
  EXPECT_EQ(s.late.highest.front().rank, 5);
  EXPECT_DOUBLE_EQ(s.late.max, 3.0);
  EXPECT_EQ(s.ranks.size(), 6u);
}

TEST(Startup, AboveTheLimitTheDistributionsAlone) {
  const StartupRecord s = startup_record(ranks_with(7, 1, 0.2), 6);
  EXPECT_TRUE(s.ranks.empty());
  EXPECT_EQ(s.phases[kStartupTotal].ranks, 7u);
  EXPECT_EQ(s.phases[kStartupTotal].highest.size(), 3u);
}

TEST(Startup, RanksWithoutFiguresAreLeftOutOfTheDistributions) {
  auto ranks = ranks_with(3, 0, 0);
  ranks[1].seconds.fill(std::nan(""));
  ranks[1].late_s = std::nan("");
  const StartupRecord s = startup_record(ranks);
  EXPECT_EQ(s.phases[0].ranks, 2u);
  EXPECT_EQ(s.late.ranks, 2u);
}

TEST(Startup, TheHeaderNamesTheSlowestAndALateRank) {
  const auto lines = startup_lines(startup_record(ranks_with(4, 2, 3.0)));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("start-up: 590 ms to the first collective, slowest rank 3 (node1); launch 10 ms", 0), 0u)
      << lines[0];
  EXPECT_NE(lines[0].find("connect 530 ms"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1], "started late: rank 2 (node1) began 3.00 s after the first rank (median 2 ms)");
  EXPECT_EQ(startup_lines(startup_record(ranks_with(4, 2, 0.4))).size(), 1u);  // under 0.5 s: no second line
  EXPECT_TRUE(startup_lines(StartupRecord{}).empty());
}

TEST(Startup, ARankFiveSecondsLateIsAWarning) {
  EXPECT_FALSE(late_start_warning(startup_record(ranks_with(4, 2, 4.9))));
  const auto w = late_start_warning(startup_record(ranks_with(4, 2, 5.0)));
  ASSERT_TRUE(w);
  EXPECT_EQ(w->code, "late_start");
  EXPECT_EQ(w->message, "rank 2 began 5.00 s after the first: a slow node or launcher (the report's startup)");
  EXPECT_LE(std::string("warning: ").size() + w->message.size(), kWarningColumns);
  EXPECT_EQ(w->detail.rfind("rank 2 (node1) began 5.00 s after the first rank", 0), 0u) << w->detail;
  EXPECT_FALSE(late_start_warning(StartupRecord{}));
}

}  // namespace
}  // namespace distbench
