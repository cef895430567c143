// The link phase's schedules (every pair; the scaled one: ring, distances 2^k, a seeded random ring) in rounds of
// disjoint pairs, the plan that --plan-links prints, and isolation's choice of whom to re-test.
#include "benchmarks/health/evaluate.hpp"
#include "benchmarks/health/link_plan.hpp"
#include "benchmarks/health/schedule.hpp"
#include "tests/support/health_nodes.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace distbench::health {
namespace {

using ::testing::HasSubstr;

std::set<NodePair> pair_set(const Rounds& rounds) {
  std::set<NodePair> out;
  for (const auto& round : rounds) {
    for (const auto& [a, b] : round) out.insert({std::min(a, b), std::max(a, b)});
  }
  return out;
}

// Each round a matching, each pair once over all rounds, every index a node.
void expect_disjoint_rounds(const Rounds& rounds, int n) {
  std::set<NodePair> seen;
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    std::set<int> busy;
    for (const auto& [a, b] : rounds[r]) {
      ASSERT_TRUE(a >= 0 && a < n && b >= 0 && b < n && a != b) << a << "-" << b << ", n=" << n;
      EXPECT_TRUE(busy.insert(a).second) << "node " << a << " twice in round " << r << ", n=" << n;
      EXPECT_TRUE(busy.insert(b).second) << "node " << b << " twice in round " << r << ", n=" << n;
      EXPECT_TRUE(seen.insert({std::min(a, b), std::max(a, b)}).second) << a << "-" << b << " twice, n=" << n;
    }
  }
}

TEST(LinkSchedule, TheScaledScheduleStaysWithin4NLog2NPairs) {
  for (int n : {33, 64, 100, 257, 1000, 4096}) {
    const auto s = link_schedule(n, LinkMode::scaled, 1);
    const double bound = 4.0 * n * std::log2(n);
    EXPECT_LE(static_cast<double>(s.pairs()), bound) << n;
    // what it is: n pairs per distance class and random ring, at most
    EXPECT_LE(s.pairs(), static_cast<std::size_t>(n) * (static_cast<std::size_t>(std::ceil(std::log2(n))) + 1)) << n;
  }
  // 1,000 nodes: ~11,000 pairs where every pair would be 499,500, in a few dozen rounds instead of 999
  const auto s = link_schedule(1000, LinkMode::automatic, 1);
  EXPECT_EQ(s.mode, LinkMode::scaled);
  EXPECT_LE(s.pairs(), 39'864U);
  EXPECT_GE(s.pairs(), 10'000U);
  EXPECT_LE(s.rounds.size(), 40U);
}

TEST(LinkSchedule, RoundsAreMatchingsOfDistinctPairs) {
  for (int n = 2; n <= 70; ++n) {
    expect_disjoint_rounds(link_schedule(n, LinkMode::scaled, 7).rounds, n);
    expect_disjoint_rounds(link_schedule(n, LinkMode::all, 7).rounds, n);
  }
  expect_disjoint_rounds(link_schedule(1000, LinkMode::scaled, 7).rounds, 1000);
  // first fit from a largest degree d takes at most 2 d - 1 rounds; along the cycles it stays near d
  const auto s = link_schedule(1000, LinkMode::scaled, 7);
  const auto d = degrees(1000, s.rounds);
  const int most = *std::max_element(d.begin(), d.end());
  EXPECT_LE(static_cast<int>(s.rounds.size()), most + 6);
}

TEST(LinkSchedule, EveryNodeMeetsItsRingNeighboursAndItsPartnersAt2PowK) {
  for (int n : {3, 5, 8, 33, 50, 127, 1000}) {
    const auto pairs = pair_set(link_schedule(n, LinkMode::scaled, 3).rounds);
    for (int i = 0; i < n; ++i) {
      for (long long d = 1; d < n; d *= 2) {
        const int j = static_cast<int>((i + d) % n);
        EXPECT_TRUE(pairs.contains({std::min(i, j), std::max(i, j)})) << "n=" << n << ": " << i << " and " << j;
      }
    }
    // so every node has at least ceil(log2 n) peers, and the pairs cross every bisection of the ring
    const auto d = degrees(n, link_schedule(n, LinkMode::scaled, 3).rounds);
    EXPECT_GE(*std::min_element(d.begin(), d.end()), static_cast<int>(std::ceil(std::log2(n)))) << n;
  }
}

TEST(LinkSchedule, TheSameSeedGivesTheSameScheduleAndAnotherSeedOtherPairs) {
  const auto a = link_schedule(200, LinkMode::scaled, 42);
  EXPECT_EQ(a.rounds, link_schedule(200, LinkMode::scaled, 42).rounds);
  const auto b = link_schedule(200, LinkMode::scaled, 43);
  EXPECT_NE(pair_set(a.rounds), pair_set(b.rounds));
  // the structured pairs are the same whatever the seed: only the random ring moves
  const auto fixed = scaled_pairs(200, 42, 0);
  const auto in_b = pair_set(b.rounds);
  for (const auto& p : fixed) EXPECT_TRUE(in_b.contains(p));
  // and the random ring does not depend on the standard library (SplitMix64 and Fisher-Yates are the code's own):
  // the pairs the seed-42 ring adds to 10 nodes' structured ones, as on any machine
  const auto structured = scaled_pairs(10, 42, 0);
  auto all = scaled_pairs(10, 42, 1);
  ASSERT_TRUE(std::equal(structured.begin(), structured.end(), all.begin()));
  all.erase(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(structured.size()));
  EXPECT_EQ(all, (std::vector<NodePair>{{5, 8}, {4, 7}, {2, 7}, {0, 3}}));
}

TEST(LinkSchedule, AllIsEveryPairAndAutoIsAllUpToTheThreshold) {
  for (int n : {2, 3, 9, 32, 40}) {
    const auto s = link_schedule(n, LinkMode::all, 1);
    EXPECT_EQ(s.pairs(), static_cast<std::size_t>(n * (n - 1) / 2)) << n;
    EXPECT_EQ(pair_set(s.rounds).size(), s.pairs()) << n;
    EXPECT_EQ(s.rounds, round_robin(n)) << n;
  }
  EXPECT_EQ(link_schedule(kEveryPairUpToNodes, LinkMode::automatic, 1).mode, LinkMode::all);
  EXPECT_EQ(link_schedule(kEveryPairUpToNodes + 1, LinkMode::automatic, 1).mode, LinkMode::scaled);
  EXPECT_EQ(link_schedule(4, LinkMode::scaled, 1).mode, LinkMode::scaled);  // forced on below the threshold
}

TEST(LinkPlan, SaysPairsRoundsDegreesAndThePredictedTime) {
  const auto plan = plan_links(1000, LinkMode::automatic, 1, 0.5);
  EXPECT_EQ(plan.every_pair, 499'500U);
  EXPECT_NEAR(plan.pair_bound, 39'863.1, 0.1);
  EXPECT_DOUBLE_EQ(plan.predicted_s(), 0.5 * static_cast<double>(plan.schedule.rounds.size()));
  EXPECT_LE(plan.predicted_s(), 600);  // the 10 minutes a 1,000-node link phase must stay within
  const auto lines = link_plan_lines(plan, false);
  ASSERT_EQ(lines.size(), 5U);
  EXPECT_THAT(lines[0], HasSubstr("link schedule for 1000 nodes: scaled: ring, distances 2^k, 1 random ring (seed 1)"));
  EXPECT_THAT(lines[1],
              HasSubstr(fmt::format("pairs: {} (every pair: 499500; 4 n log2 n: 39863)", plan.schedule.pairs())));
  EXPECT_THAT(lines[2], HasSubstr("(every pair: 999)"));
  EXPECT_THAT(lines[3], HasSubstr(fmt::format("min {}", plan.degree_min)));
  EXPECT_THAT(lines[4], HasSubstr(fmt::format("{} rounds x 0.5 s", plan.schedule.rounds.size())));
  const auto listed = link_plan_lines(plan_links(4, LinkMode::all, 1), true);
  ASSERT_EQ(listed.size(), 5U + 3U);
  EXPECT_EQ(listed[5], "round 1: 0-3 1-2");
}

// What the link phase measured on `n` nodes, one rank each, for `pairs`: `gbps(from, to)` each way, 10 us latency.
PhaseResult measured_links(int n, const std::vector<NodePair>& pairs, const std::function<double(int, int)>& gbps) {
  PhaseResult r;
  r.name = "links";
  r.ranks.assign(static_cast<std::size_t>(n), nlohmann::json{{"links", nlohmann::json::array()}});
  for (const auto& [a, b] : pairs) {
    (*r.ranks[static_cast<std::size_t>(a)])["links"].push_back({{"from", a}, {"to", b}, {"gbps", gbps(a, b)}});
    (*r.ranks[static_cast<std::size_t>(b)])["links"].push_back({{"from", b}, {"to", a}, {"gbps", gbps(b, a)}});
    (*r.ranks[static_cast<std::size_t>(a)])["links"].push_back({{"from", a}, {"to", b}, {"latency_us", 10.0}});
  }
  return r;
}

// A little noise, the same each run: 1 GB/s within +-5 %.
double healthy_gbps(int a, int b) { return 1.0 + 0.05 * std::sin(a * 7.0 + b * 3.0); }

TEST(ScaledIsolation, ANodeSlowWithSeveralPeersIsTheOneRetested) {
  const int n = 100, slow = 37;
  const auto pairs = link_schedule(n, LinkMode::scaled, 1).in_order();
  const Topology topo = one_rank_per_node(n);
  HealthPlan plan;
  // node 37's egress at a hundredth: every pair it is in has a slow direction
  const auto links = link_checks(
      measured_links(n, pairs, [&](int from, int to) { return from == slow ? 0.01 : healthy_gbps(from, to); }), topo,
      plan);
  const auto iso = plan_isolation(n, links.bad, links.good, links.score);
  ASSERT_EQ(iso.retests.size(), 1U) << "its peers are explained by it";
  EXPECT_EQ(iso.retests[0].first, slow);
  EXPECT_TRUE(iso.link_retests.empty());
  // the summary of its links names the slowest with its peer
  const auto low = std::find_if(links.node_summaries.begin(), links.node_summaries.end(), [&](const Check& c) {
    return c.metric == "node.link.min_gbps" && c.host == topo.hosts[slow];
  });
  ASSERT_NE(low, links.node_summaries.end());
  EXPECT_DOUBLE_EQ(low->value, 0.01);
  EXPECT_FALSE(low->peer.empty());
  EXPECT_EQ(links.node_summaries.size(), 2U * n);
}

TEST(ScaledIsolation, ALinkSlowWithOnePeerOnlyIsRetestedAloneAndBothEndsAgainstReferences) {
  const int n = 64;
  const auto pairs = link_schedule(n, LinkMode::scaled, 1).in_order();
  const Topology topo = one_rank_per_node(n);
  HealthPlan plan;
  const auto links = link_checks(
      measured_links(n, pairs, [](int from, int to) { return (from == 5 && to == 6) ? 0.01 : healthy_gbps(from, to); }),
      topo, plan);
  ASSERT_EQ(links.bad, (std::vector<NodePair>{{5, 6}}));
  const auto iso = plan_isolation(n, links.bad, links.good, links.score);
  EXPECT_EQ(iso.link_retests, (std::vector<NodePair>{{5, 6}}));
  ASSERT_EQ(iso.retests.size(), 2U);
  EXPECT_EQ(iso.retests[0].first, 5);
  EXPECT_EQ(iso.retests[1].first, 6);
  EXPECT_NE(iso.retests[0].second, iso.retests[1].second) << "two references: the re-tests run side by side";
  // the order the phase takes them in: rounds of disjoint pairs, the link after its ends' own re-tests
  const auto order = iso.in_order();
  ASSERT_EQ(order.size(), 3U);
  EXPECT_EQ(order[2], (NodePair{5, 6}));
}

TEST(RoundRobin, EveryPairOnceInDisjointRounds) {
  for (int n = 1; n <= 9; ++n) {
    const auto rounds = round_robin(n);
    std::set<NodePair> seen;
    for (const auto& round : rounds) {
      std::set<int> busy;
      for (const auto& [a, b] : round) {
        EXPECT_LT(a, b);
        EXPECT_TRUE(busy.insert(a).second) << "node " << a << " twice in one round, n=" << n;
        EXPECT_TRUE(busy.insert(b).second) << "node " << b << " twice in one round, n=" << n;
        EXPECT_TRUE(seen.insert({a, b}).second) << "pair measured twice, n=" << n;
      }
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(n * (n - 1) / 2)) << n;
    if (n >= 2) {
      EXPECT_EQ(rounds.size(), static_cast<std::size_t>(n % 2 == 0 ? n - 1 : n)) << n;
    }
  }
}

TEST(Isolation, TheNodeInEverySlowPairIsRetestedAgainstAGoodOne) {
  // nodeC (2) is slow with A and B; A-B is fine: A and B are the references, C is re-tested against the better.
  const auto plan = plan_isolation(3, {{0, 2}, {1, 2}}, {{0, 1}}, {1.0, 1.2, 0.3});
  EXPECT_EQ(plan.references, (std::vector<int>{0, 1}));
  ASSERT_EQ(plan.retests.size(), 1U);
  EXPECT_EQ(plan.retests[0], (NodePair{2, 1}));
  EXPECT_TRUE(plan.cannot_isolate.empty());
}

TEST(Isolation, NodesOutsideBadPairsAreReferences) {
  const auto plan = plan_isolation(5, {{1, 3}}, {{0, 1}, {0, 2}}, {1, 1, 1, 1, 1});
  EXPECT_EQ(plan.references, (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(plan.retests.size(), 2U);  // both ends of the one bad pair, each against a reference
}

TEST(Isolation, WhenEveryPairLooksSlowTheFastestNodeIsTheReference) {
  const auto plan = plan_isolation(3, {{0, 1}, {0, 2}, {1, 2}}, {}, {1.0, 1.5, 0.02});
  EXPECT_EQ(plan.references, (std::vector<int>{1}));
  EXPECT_EQ(plan.retests, (std::vector<NodePair>{{0, 1}, {2, 1}}));
  EXPECT_TRUE(plan.cannot_isolate.empty());
}

TEST(Isolation, WhenEveryPairLooksSlowTheNodeInFewestSlowPairsIsTheReference) {
  auto plan = plan_isolation(3, {{0, 1}, {0, 2}, {1, 2}}, {}, {1.0, 1.5, 0.02});
  EXPECT_EQ(plan.references, (std::vector<int>{1}));  // a tie in slow pairs: the best score
  EXPECT_EQ(plan.retests, (std::vector<NodePair>{{0, 1}, {2, 1}}));
  EXPECT_TRUE(plan.cannot_isolate.empty());
  // nodeC (2) in two slow pairs, A and B in one each (with C): a noisy A-B link is not the whole story
  plan = plan_isolation(4, {{0, 2}, {1, 2}, {2, 3}, {0, 1}, {0, 3}, {1, 3}}, {}, {1.0, 1.0, 2.0, 1.0});
  EXPECT_EQ(plan.references, (std::vector<int>{2}));
}

TEST(Isolation, TwoNodesCannotBeIsolated) {
  const auto plan = plan_isolation(2, {{0, 1}}, {}, {0.1, 0.1});
  EXPECT_TRUE(plan.retests.empty());
  EXPECT_EQ(plan.cannot_isolate, (std::vector<int>{0, 1}));
}

TEST(Isolation, NothingToDoWhenAllIsWell) {
  const auto plan = plan_isolation(4, {}, {{0, 1}, {2, 3}}, {1, 1, 1, 1});
  EXPECT_TRUE(plan.retests.empty());
  EXPECT_TRUE(plan.references.empty());
}

}  // namespace
}  // namespace distbench::health
