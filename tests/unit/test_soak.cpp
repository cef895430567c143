// Health's data-corruption soak as the root judges it (benchmarks/health/soak): the rank whose results read back
// wrong is failed and named with its host and device, the others pass; the rotation's sizes.
#include "benchmarks/health/soak.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace distbench::health {
namespace {

using ::testing::HasSubstr;

nlohmann::json soak_rank(std::uint64_t calls, std::uint64_t wrong_calls, std::uint64_t wrong_elements) {
  nlohmann::json j = {{"device", "cuda: GPU 1 (NVIDIA H200)"}, {"calls", calls},          {"calls_wrong", wrong_calls},
                      {"elements_wrong", wrong_elements},      {"elements_checked", 4e9}, {"seconds", 60.1}};
  if (wrong_calls > 0) {
    j["first_wrong_call"] = 17;
    j["wrong_cases"] = {{"allreduce of 8 MiB float32", wrong_calls}};
  }
  return j;
}

PhaseResult soak_phase_of(std::vector<std::optional<nlohmann::json>> ranks) {
  PhaseResult r;
  r.name = "soak";
  r.ranks = std::move(ranks);
  return r;
}

const Check& find_check(const std::vector<Check>& checks, const std::string& subject, const std::string& metric) {
  for (const Check& c : checks) {
    if (c.subject == subject && c.metric == metric) return c;
  }
  throw std::runtime_error(subject + " " + metric + ": no such check");
}

TEST(Soak, TheRankWhoseResultsReadBackWrongFailsNamedWithItsDevice) {
  const Topology topo = make_topology({0, 0, 1, 1}, {"a", "a", "b", "b"});
  HealthPlan plan;
  plan.soak_seconds = 60;
  const auto checks = soak_checks(
      soak_phase_of({soak_rank(1200, 0, 0), soak_rank(1200, 0, 0), soak_rank(1200, 0, 0), soak_rank(1200, 3, 57)}),
      topo, plan);
  ASSERT_EQ(checks.size(), 9U);  // two per rank, and the calls each ran
  const Check& calls = find_check(checks, "rank 3", "soak.calls_wrong");
  EXPECT_EQ(calls.status, Status::failed);
  EXPECT_EQ(calls.host, "b");
  EXPECT_EQ(calls.value, 3);
  EXPECT_EQ(calls.limit, "== 0");
  EXPECT_THAT(calls.why, HasSubstr("3 of 1200 calls read back wrong on b (cuda: GPU 1 (NVIDIA H200))"));
  EXPECT_THAT(calls.why, HasSubstr("57 of 4e+09 elements, first at call 17 (allreduce of 8 MiB float32: 3 wrong)"));
  const Check& elements = find_check(checks, "rank 3", "soak.elements_wrong");
  EXPECT_EQ(elements.status, Status::failed);
  EXPECT_EQ(elements.value, 57);
  for (const char* r : {"rank 0", "rank 1", "rank 2"}) {
    EXPECT_EQ(find_check(checks, r, "soak.calls_wrong").status, Status::healthy) << r;
    EXPECT_EQ(find_check(checks, r, "soak.elements_wrong").value, 0) << r;
  }
  const Check& ran = find_check(checks, "job", "soak.calls");
  EXPECT_EQ(ran.value, 1200);
  EXPECT_EQ(ran.status, Status::healthy);
  EXPECT_EQ(ran.host, "");
  // the verdict: node b failed for rank 3, node a healthy
  const auto nodes = node_verdicts(topo.hosts, topo.ranks_of_node, checks);
  EXPECT_EQ(nodes[0].status, Status::healthy);
  EXPECT_EQ(nodes[1].status, Status::failed);
  EXPECT_THAT(nodes[1].reason, HasSubstr("soak.calls_wrong"));
}

TEST(Soak, RanksThatDidNotArriveAreLeftToTheArrivalChecks) {
  const Topology topo = make_topology({0, 1}, {"a", "b"});
  const auto checks = soak_checks(
      soak_phase_of({nlohmann::json{{"error", "soak: allreduce of 8 MiB float32, call 9: timed out"}}, std::nullopt}),
      topo, HealthPlan{});
  EXPECT_TRUE(checks.empty());
}

TEST(Soak, RulesHoldItsMetrics) {
  const Topology topo = make_topology({0}, {"a"});
  HealthPlan plan;
  plan.rules.rules.push_back({"soak.calls", ">=", 1e9, Status::degraded});
  const auto checks = soak_checks(soak_phase_of({soak_rank(100, 0, 0)}), topo, plan);
  EXPECT_EQ(find_check(checks, "job", "soak.calls").status, Status::degraded);
}

TEST(Soak, TheRotationStaysWithinTheAllreduceSize) {
  HealthPlan plan;
  plan.allreduce_bytes = std::size_t{8} << 20;
  const auto cases = soak_cases(plan);
  ASSERT_EQ(cases.size(), 4U);
  EXPECT_EQ(cases[0].dtype, DType::float32);
  EXPECT_EQ(cases[0].bytes, plan.allreduce_bytes);
  EXPECT_EQ(cases[1].dtype, DType::bfloat16);
  EXPECT_EQ(cases[3].bytes, 4096U);
  plan.allreduce_bytes = 8;
  for (const SoakCase& c : soak_cases(plan)) EXPECT_EQ(c.bytes, 8U) << name(c.dtype);
  // the timeout covers the budget and one more -T
  plan.soak_seconds = 60;
  plan.timeout_s = 30;
  EXPECT_EQ(soak_phase_timeout_s(plan), 90);
}

}  // namespace
}  // namespace distbench::health
