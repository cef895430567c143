// Node verdicts (benchmarks/health/verdict): the worst check decides and names itself; screening checks count only
// through their re-tests.
#include "benchmarks/health/verdict.hpp"
#include "tests/support/health_checks.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace distbench::health {
namespace {

using ::testing::HasSubstr;

TEST(Verdict, WorstCheckDecidesAndNamesItself) {
  std::vector<Check> checks = figures({1, 2, 3});
  checks[0].host = "nodeA";
  checks[1].host = "nodeB";
  checks[1].status = Status::degraded;
  checks[1].why = "slow";
  checks[2].host = "nodeB";
  checks[2].status = Status::failed;
  checks[2].why = "wrong";
  const auto v = node_verdicts({"nodeA", "nodeB", "nodeC"}, {{0}, {1}, {2}}, checks);
  ASSERT_EQ(v.size(), 3U);
  EXPECT_EQ(v[0].status, Status::healthy);
  EXPECT_EQ(v[1].status, Status::failed);
  EXPECT_THAT(v[1].reason, HasSubstr("wrong"));
  EXPECT_EQ(v[2].status, Status::healthy);
  EXPECT_EQ(overall_status(v, checks), Status::failed);
  EXPECT_EQ(worse(Status::unknown, Status::degraded), Status::degraded);
  EXPECT_EQ(worse(Status::healthy, Status::unknown), Status::unknown);
}

TEST(Verdict, ScreeningChecksCountOnlyThroughTheirRetests) {
  std::vector<Check> checks = figures({0.01, 0.02});
  checks[0].screening = true;  // a slow link, before isolation
  checks[0].status = Status::degraded;
  checks[1].screening = true;  // a node's allreduce measured alongside the others
  checks[1].host = "nodeA";
  checks[1].status = Status::degraded;
  auto v = node_verdicts({"nodeA"}, {{0}}, checks);
  EXPECT_EQ(v[0].status, Status::healthy);
  EXPECT_EQ(overall_status(v, checks), Status::healthy);
  checks[0].screening = false;
  checks[1].screening = false;
  v = node_verdicts({"nodeA"}, {{0}}, checks);
  EXPECT_EQ(v[0].status, Status::degraded);
  EXPECT_EQ(overall_status(v, checks), Status::degraded);
}

}  // namespace
}  // namespace distbench::health
