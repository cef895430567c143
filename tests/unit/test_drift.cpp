// The odd node out (benchmarks/health/drift): the node whose value differs from most nodes' is named with the key and
// both values; without a majority no node is named; a key missing on one node is a difference; a key on which every
// node differs is one check; one node has nothing to compare.
#include "benchmarks/health/drift.hpp"

#include "benchmarks/health/health_record.hpp"
#include "benchmarks/health/prometheus.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace distbench::health {
namespace {

using ::testing::HasSubstr;

KeyValues base() {
  return {{"kernel", "6.1.0-18-amd64"}, {"limit.memlock", "unlimited"}, {"env.NCCL_IB_HCA", "mlx5_0"}};
}

std::vector<Check> with_metric(const std::vector<Check>& checks, const std::string& metric) {
  std::vector<Check> out;
  for (const Check& c : checks) {
    if (c.metric == metric) out.push_back(c);
  }
  return out;
}

TEST(Drift, TheOddNodeIsNamedWithBothValues) {
  KeyValues odd = base();
  odd[1].second = "64 KiB";
  const auto checks = drift_checks({"nodeA", "nodeB", "nodeC"}, {base(), odd, base()});
  const auto named = with_metric(checks, "drift.odd");
  ASSERT_EQ(named.size(), 1U);
  EXPECT_EQ(named[0].phase, "drift");
  EXPECT_EQ(named[0].subject, "nodeB");
  EXPECT_EQ(named[0].host, "nodeB");
  EXPECT_EQ(named[0].key, "limit.memlock");
  EXPECT_EQ(named[0].status, Status::degraded);
  EXPECT_EQ(named[0].value, 1);
  EXPECT_EQ(named[0].why, "limit.memlock: 64 KiB here, unlimited on the other 2 nodes");
  EXPECT_TRUE(with_metric(checks, "drift.split").empty());
  const auto summary = with_metric(checks, "drift.nodes");
  ASSERT_EQ(summary.size(), 1U);
  EXPECT_EQ(summary[0].value, 3);
  EXPECT_EQ(summary[0].status, Status::healthy);
  // The node verdicts: nodeB degraded by it, the others healthy.
  const auto verdicts = node_verdicts({"nodeA", "nodeB", "nodeC"}, {{0}, {1}, {2}}, checks);
  EXPECT_EQ(verdicts[0].status, Status::healthy);
  EXPECT_EQ(verdicts[1].status, Status::degraded);
  EXPECT_THAT(verdicts[1].reason, HasSubstr("limit.memlock: 64 KiB here"));
  EXPECT_EQ(verdicts[2].status, Status::healthy);
}

TEST(Drift, SameEverywhereIsNoFinding) {
  const auto checks = drift_checks({"a", "b", "c", "d"}, {base(), base(), base(), base()});
  ASSERT_EQ(checks.size(), 1U);
  EXPECT_EQ(checks[0].metric, "drift.nodes");
  EXPECT_EQ(checks[0].why, "");
}

TEST(Drift, AKeyMissingOnOneNodeIsADifference) {
  KeyValues extra = base();
  extra.emplace_back("env.NCCL_DEBUG", "INFO");
  const auto checks = drift_checks({"nodeA", "nodeB", "nodeC", "nodeD"}, {base(), base(), extra, base()});
  const auto named = with_metric(checks, "drift.odd");
  ASSERT_EQ(named.size(), 1U);
  EXPECT_EQ(named[0].host, "nodeC");
  EXPECT_EQ(named[0].why, "env.NCCL_DEBUG: INFO here, not set on the other 3 nodes");
  // ... and the other way round: the one node without it.
  const auto missing = with_metric(drift_checks({"nodeA", "nodeB", "nodeC"}, {extra, base(), extra}), "drift.odd");
  ASSERT_EQ(missing.size(), 1U);
  EXPECT_EQ(missing[0].host, "nodeB");
  EXPECT_EQ(missing[0].why, "env.NCCL_DEBUG: not set here, INFO on the other 2 nodes");
}

TEST(Drift, NoMajorityNamesNoNode) {
  KeyValues other = base();
  other[0].second = "6.8.0";
  // Two nodes that differ: which one is odd cannot be told.
  auto checks = drift_checks({"nodeA", "nodeB"}, {base(), other});
  EXPECT_TRUE(with_metric(checks, "drift.odd").empty());
  auto split = with_metric(checks, "drift.split");
  ASSERT_EQ(split.size(), 1U);
  EXPECT_EQ(split[0].host, "");
  EXPECT_EQ(split[0].subject, "kernel");
  EXPECT_EQ(split[0].key, "kernel");
  EXPECT_EQ(split[0].status, Status::degraded);
  EXPECT_EQ(split[0].value, 2);
  EXPECT_EQ(split[0].why,
            "kernel: no value is on most of the 2 nodes: 6.1.0-18-amd64 on 1 node (nodeA); 6.8.0 on 1 node (nodeB)");
  EXPECT_EQ(overall_status(node_verdicts({"nodeA", "nodeB"}, {{0}, {1}}, checks), checks), Status::degraded);
  // A tie of 2 against 2.
  checks = drift_checks({"a", "b", "c", "d"}, {base(), other, other, base()});
  EXPECT_TRUE(with_metric(checks, "drift.odd").empty());
  split = with_metric(checks, "drift.split");
  ASSERT_EQ(split.size(), 1U);
  EXPECT_THAT(split[0].why, HasSubstr("6.1.0-18-amd64 on 2 nodes (a, d); 6.8.0 on 2 nodes (b, c)"));
}

TEST(Drift, AMajorityAmongSeveralValues) {
  KeyValues b = base(), c = base();
  b[0].second = "6.8.0";
  c[0].second = "5.15.0";
  const auto checks = drift_checks({"n1", "n2", "n3", "n4", "n5"}, {base(), b, base(), c, base()});
  const auto named = with_metric(checks, "drift.odd");
  ASSERT_EQ(named.size(), 2U);
  EXPECT_EQ(named[0].host, "n2");
  EXPECT_EQ(named[0].why, "kernel: 6.8.0 here, 6.1.0-18-amd64 on 3 of the 5 nodes");
  EXPECT_EQ(named[1].host, "n4");
}

TEST(Drift, EveryNodeDifferentIsOneCheck) {
  std::vector<std::string> hosts;
  std::vector<std::optional<KeyValues>> facts;
  for (int n = 0; n < 1000; ++n) {
    hosts.push_back("node" + std::to_string(n));
    KeyValues f = base();
    f.emplace_back("env.NCCL_HOSTID", "id" + std::to_string(n));
    facts.emplace_back(f);
  }
  const auto checks = drift_checks(hosts, facts);
  EXPECT_TRUE(with_metric(checks, "drift.odd").empty());
  const auto split = with_metric(checks, "drift.split");
  ASSERT_EQ(split.size(), 1U);
  EXPECT_EQ(split[0].value, 1000);
  EXPECT_EQ(split[0].why,
            "env.NCCL_HOSTID: each of the 1000 nodes has its own value: id0 on 1 node (node0); id1 on 1 node (node1); "
            "id2 on 1 node (node2); id3 on 1 node (node3); 996 more values on 996 nodes");
}

TEST(Drift, ANodeDifferingOnManyKeysIsBounded) {
  KeyValues many, odd;
  for (int k = 0; k < 20; ++k) {
    many.emplace_back("key" + std::to_string(10 + k), "same");
    odd.emplace_back("key" + std::to_string(10 + k), "other");
  }
  const auto named = with_metric(drift_checks({"a", "b", "c"}, {many, many, odd}), "drift.odd");
  ASSERT_EQ(named.size(), kMaxDriftChecksPerNode);
  EXPECT_EQ(named.back().key, "more");
  EXPECT_EQ(named.back().value, 13);
  EXPECT_THAT(named.back().why, HasSubstr("13 more keys differ from most nodes': key17, key18,"));
}

TEST(Drift, OneNodeHasNothingToCompare) {
  const auto checks = drift_checks({"solo"}, {base()});
  ASSERT_EQ(checks.size(), 1U);
  EXPECT_EQ(checks[0].metric, "drift.nodes");
  EXPECT_EQ(checks[0].skipped, "drift: not tested: one node, nothing to compare its software and settings with");
}

TEST(Drift, ANodeWhoseFactsDidNotArriveIsLeftOut) {
  KeyValues odd = base();
  odd[0].second = "6.8.0";
  const auto checks = drift_checks({"nodeA", "nodeB", "nodeC"}, {base(), std::nullopt, odd});
  EXPECT_EQ(with_metric(checks, "drift.nodes")[0].value, 2);
  EXPECT_TRUE(with_metric(checks, "drift.odd").empty());  // 1 against 1
  EXPECT_EQ(with_metric(checks, "drift.split").size(), 1U);
}

TEST(Drift, FactsTravelAsJson) {
  const KeyValues facts = base();
  EXPECT_EQ(facts_of(facts_json(facts)), facts);
  EXPECT_EQ(facts_of(nlohmann::json::object()), std::nullopt);
  EXPECT_EQ(facts_of(nlohmann::json{{"facts", {{"k", 1}}}}), std::nullopt);
}

TEST(Drift, RecordsAndPrometheusCarryTheKey) {
  KeyValues odd = base();
  odd[2].second = "mlx5_1";
  KeyValues other = base();
  other[0].second = "6.8.0";
  std::vector<Record> records;
  for (const Check& c : drift_checks({"nodeA", "nodeB", "nodeC", "nodeD"}, {base(), odd, other, other})) {
    records.push_back(check_record(c));
    EXPECT_EQ(check_of(records.back()).key, c.key);
  }
  const std::string text = prometheus_text(records, 1.7e9);
  EXPECT_THAT(text, HasSubstr("distbench_health_drift_odd{host=\"nodeB\",key=\"env.NCCL_IB_HCA\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_drift_values{key=\"kernel\"} 2\n"));
}

}  // namespace
}  // namespace distbench::health
