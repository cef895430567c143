// start_checks(): a check a node, its value the latest of its ranks' lateness, degraded past the bound and naming
// that rank; ranks without a figure left out.
#include "benchmarks/health/start_checks.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace distbench::health {
namespace {

std::vector<StartupRank> lateness(const std::vector<double>& late) {
  std::vector<StartupRank> out;
  for (std::size_t r = 0; r < late.size(); ++r) {
    StartupRank one;
    one.rank = static_cast<int>(r);
    one.late_s = late[r];
    out.push_back(one);
  }
  return out;
}

TEST(StartChecks, TheNodeOfALateRankIsDegradedAndTheOthersHealthy) {
  const Topology topo = make_topology({0, 0, 1, 1, 2, 2}, {"a", "a", "b", "b", "c", "c"});
  const auto checks = start_checks(lateness({0, 0.01, 0.02, 6.5, 0.1, 0}), topo, 5);
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0].status, Status::healthy);
  EXPECT_EQ(checks[0].host, "a");
  EXPECT_EQ(checks[1].host, "b");
  EXPECT_EQ(checks[1].metric, "start.late_s");
  EXPECT_DOUBLE_EQ(checks[1].value, 6.5);
  EXPECT_EQ(checks[1].status, Status::degraded);
  EXPECT_NE(checks[1].why.find("rank 3 began 6.50 s after the first rank"), std::string::npos) << checks[1].why;
  EXPECT_EQ(checks[1].limit, "<= 5 s");
  EXPECT_EQ(checks[2].status, Status::healthy);
  EXPECT_DOUBLE_EQ(checks[2].value, 0.1);
  const auto verdicts = node_verdicts(topo.hosts, topo.ranks_of_node, checks);
  EXPECT_EQ(verdicts[1].status, Status::degraded);
  EXPECT_EQ(verdicts[0].status, Status::healthy);
}

TEST(StartChecks, RanksWithoutAFigureAreLeftOut) {
  const Topology topo = make_topology({0, 1, 1}, {"a", "b", "b"});
  const auto checks = start_checks(lateness({0, std::nan(""), 0.3}), topo, 5);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_DOUBLE_EQ(checks[1].value, 0.3);
  EXPECT_TRUE(start_checks(lateness({std::nan("")}), make_topology({0}, {"a"}), 5).empty());
  EXPECT_TRUE(start_checks({}, make_topology({0}, {"a"}), 5).empty());  // no figures: nothing judged
}

}  // namespace
}  // namespace distbench::health
