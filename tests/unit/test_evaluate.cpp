// Health's evaluation of the phases' figures (benchmarks/health/evaluate): the topology, who did not arrive,
// stragglers.
#include "benchmarks/health/evaluate.hpp"
#include "benchmarks/health/verdict.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace distbench::health {
namespace {

using ::testing::HasSubstr;

// A phase's results as the root gets them: one JSON per rank, nullopt for a rank that did not arrive.
PhaseResult phase_of(std::string name, std::vector<std::optional<nlohmann::json>> ranks) {
  PhaseResult r;
  r.name = std::move(name);
  r.ranks = std::move(ranks);
  return r;
}

TEST(Stragglers, ARankLastInMostIterationsByAMillisecondIsNamed) {
  const Topology topo = make_topology({0, 0, 1, 1}, {"a", "a", "b", "b"});
  HealthPlan plan;
  // rank 3 (host b) arrives 3 ms after the others in 18 of 20 iterations; host b's steady clock runs 1 s ahead of
  // the root's, which the clock offsets take out.
  std::vector<std::optional<nlohmann::json>> ranks;
  for (int r = 0; r < 4; ++r) {
    nlohmann::json arrivals = nlohmann::json::array();
    for (int i = 0; i < 20; ++i) {
      double t = 1e9 * i + 10e3 * r;          // ns: ranks 10 us apart
      if (r == 3) t += i >= 2 ? 3e6 : -50e3;  // first in the first two iterations
      if (r >= 2) t += 1e9;
      arrivals.push_back(t);
    }
    // rank 3's work takes 4 ms, the others' 1 ms
    ranks.emplace_back(
        nlohmann::json{{"arrival_ns", arrivals}, {"work_ns", std::vector<double>(20, r == 3 ? 4e6 : 1e6)}});
  }
  const auto checks = straggler_checks(phase_of("stragglers", ranks), topo, plan, {0.0, 1e9});
  ASSERT_EQ(checks.size(), 4U);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(checks[static_cast<std::size_t>(r)].status, Status::healthy) << r;
  EXPECT_EQ(checks[3].status, Status::degraded);
  EXPECT_EQ(checks[3].host, "b");
  EXPECT_THAT(checks[3].why, HasSubstr("last to arrive in 18 of 20"));
  // without the clock offset, host b would look a second late every time: the offsets matter
  const auto unaligned = straggler_checks(phase_of("stragglers", ranks), topo, plan, {0.0, 0.0});
  EXPECT_EQ(unaligned[2].status, Status::healthy);  // rank 2 is never the last: rank 3 always is
  EXPECT_EQ(unaligned[3].status, Status::degraded);
  // late, but its work is as fast as everyone's: the collective before let it go last (a slow link), not a straggler
  for (auto& r : ranks) (*r)["work_ns"] = std::vector<double>(20, 1e6);
  EXPECT_EQ(straggler_checks(phase_of("stragglers", ranks), topo, plan, {0.0, 1e9})[3].status, Status::healthy);
}

TEST(Arrival, MissingRanksFailTheirNodeAndWaitersAreUnknown) {
  const Topology topo = make_topology({0, 0, 1, 1}, {"a", "a", "b", "b"});
  auto phase = phase_of("links", {nlohmann::json{{"error", "receive from rank 2 timed out"}, {"timeout", true}},
                                  nlohmann::json::object(), std::nullopt, std::nullopt});
  EXPECT_EQ(phase.missing(), (std::vector<int>{2, 3}));
  const auto checks = arrival_checks(phase, topo, 5, 0);
  ASSERT_EQ(checks.size(), 3U);
  EXPECT_EQ(checks[0].host, "b");
  EXPECT_EQ(checks[0].status, Status::failed);
  EXPECT_THAT(checks[0].why, HasSubstr("TIMEOUT: did not arrive at the end of phase links within 5 s"));
  EXPECT_EQ(checks[2].host, "a");
  EXPECT_EQ(checks[2].status, Status::unknown);
  const auto v = node_verdicts(topo.hosts, topo.ranks_of_node, checks);
  EXPECT_EQ(v[0].status, Status::unknown);
  EXPECT_EQ(v[1].status, Status::failed);
  // with everyone present, a rank whose calls failed is the failure
  phase.ranks[2] = nlohmann::json::object();
  phase.ranks[3] = nlohmann::json::object();
  EXPECT_EQ(arrival_checks(phase, topo, 5, 0)[0].status, Status::failed);
}

TEST(Arrival, ALateRootIsNamedAndTheRanksItMissedAreNotBlamed) {
  // The root (rank 0, host a) was stopped past the phase's wait: rank 3's result did not reach it in time, and its
  // own body failed waiting for the others. Blaming rank 3 would drain host b, which kept time.
  const Topology topo = make_topology({0, 0, 1, 1}, {"a", "a", "b", "b"});
  auto phase =
      phase_of("node", {nlohmann::json{{"error", "allreduce timed out"}, {"timeout", true}}, nlohmann::json::object(),
                        nlohmann::json{{"error", "allreduce timed out"}}, std::nullopt});
  phase.root_behind_s = 2.25;
  const auto checks = arrival_checks(phase, topo, 5, 0);
  ASSERT_EQ(checks.size(), 3U);
  EXPECT_EQ(checks[0].subject, "rank 0");
  EXPECT_EQ(checks[0].host, "a");
  EXPECT_EQ(checks[0].status, Status::failed);
  EXPECT_THAT(checks[0].why, HasSubstr("the root, was 2.25 s late in phase node (timeout 5 s)"));
  EXPECT_EQ(checks[1].subject, "rank 3");
  EXPECT_EQ(checks[1].status, Status::unknown);
  EXPECT_THAT(checks[1].why, HasSubstr("the root itself was late"));
  EXPECT_EQ(checks[2].subject, "rank 2");  // its failure waited for the root: not its own
  EXPECT_EQ(checks[2].status, Status::unknown);
  const auto v = node_verdicts(topo.hosts, topo.ranks_of_node, checks);
  EXPECT_EQ(v[0].status, Status::failed);
  EXPECT_EQ(v[1].status, Status::unknown);
}

TEST(Topology, NodesInOrderOfTheirFirstRank) {
  const Topology t = make_topology({0, 0, 1, 1, 2, 2}, {"a", "a", "b", "b", "c", "c"});
  EXPECT_EQ(t.hosts, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(t.leaders, (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(t.host_of(3), "b");
  EXPECT_EQ(t.link_name(2, 0), "c->a");
}

}  // namespace
}  // namespace distbench::health
