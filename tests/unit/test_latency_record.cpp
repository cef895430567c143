// Latency's records (benchmarks/latency/latency_record): from the pairs' one-way samples, its table, its summary and
// the manual's list of its metrics.
#include "benchmarks/latency/latency_record.hpp"
#include "tests/support/schema_doc.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>

namespace distbench::latency {
namespace {

TEST(Latency, RecordFromThePairsOneWaySamples) {
  // Pair 0-1 at 1 us, pair 2-3 at 3 us (rank 3 once at 7 us).
  const std::vector<std::vector<double>> by_rank = {
      {1e-6, 1e-6, 1e-6}, {1e-6, 1e-6, 1e-6}, {3e-6, 3e-6, 3e-6}, {3e-6, 3e-6, 7e-6}};
  const Record r = latency_record(1000, "mpi", by_rank, 50, true, 0, {"a", "a", "b", "b"});
  EXPECT_EQ(r.kind, "latency");
  EXPECT_EQ(r.param_text("pairs"), "2");
  EXPECT_EQ(r.param_text("bytes"), "1000");
  EXPECT_EQ(r.ops_per_sample, 50);
  const double mean = (1 + 1 + 3 + 13.0 / 3) / 4;  // us: the mean of the ranks' means
  EXPECT_NEAR(r.metric("latency_us"), mean, 1e-9);
  EXPECT_NEAR(r.metric("slowest_rank_us"), 13.0 / 3, 1e-9);
  EXPECT_NEAR(r.metric("latency_median_us"), 2.0, 1e-9);  // samples across ranks: 2, 2, 3
  EXPECT_NEAR(r.metric("bandwidth_gbps"), 1000 / (mean * 1e-6) / 1e9, 1e-9);
  EXPECT_EQ(r.metric("wrong"), 0);
  ASSERT_EQ(r.ranks.size(), 4u);
  EXPECT_EQ(r.ranks[2].host, "b");
  EXPECT_EQ(r.ranks[2].figures[1].key, "peer");
  EXPECT_EQ(r.ranks[2].figures[1].value, 3);
  EXPECT_EQ(r.ranks[3].figures[1].value, 2);
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_EQ(r.phases[0].name, "one_way");
  EXPECT_TRUE(std::isnan(latency_record(8, "mpi", by_rank, 1, true, -1, {}).metric("wrong")));  // not checked
}

TEST(Latency, EveryTableColumnIsAParameterOrAMetricOfTheLayout) {
  const RecordLayout records = latency_record_layout();
  const TableLayout table = latency_table();
  auto known = [&](const std::string& key) {
    for (const auto& p : records.params)
      if (p == key) return true;
    for (const auto& m : records.metrics)
      if (m.key == key) return true;
    return false;
  };
  for (const auto& c : table.key_columns) EXPECT_TRUE(known(c.key)) << c.key;
  for (const auto& c : table.value_columns) EXPECT_TRUE(known(c.key)) << c.key;
  EXPECT_TRUE(table.split_key.empty());
}

// The smallest message's interquartile mean: one preempted sample in 8 moves the mean (the latency column), not it.
TEST(Latency, SummaryNamesTheSmallestMessage) {
  const std::vector<std::vector<double>> by_rank = {{2e-6, 2e-6, 2e-6, 2e-6, 2e-6, 2e-6, 2e-6, 802e-6},
                                                    {2e-6, 2e-6, 2e-6, 2e-6, 2e-6, 2e-6, 2e-6, 2e-6}};
  const auto items = latency_summary(
      {latency_record(8, "mpi", by_rank, 1, true, 0, {}), latency_record(64, "mpi", by_rank, 1, true, 1, {})});
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].text, "2.00 us (8 B, interquartile mean)");
  EXPECT_DOUBLE_EQ(items[0].value, 2);
  EXPECT_DOUBLE_EQ(items[1].value, 1);
}

TEST(LatencyRecord, TheManualDocumentsEachMetricWithItsUnit) {
  std::map<std::string, std::string> declared;
  for (const MetricSpec& m : latency_record_layout().metrics) declared[m.key] = m.unit;
  EXPECT_EQ(test_support::documented_metrics("### Latency records"), declared);
}

TEST(LatencyRecord, EachColumnOfTheTableIsAParameterOrMetricOfTheRecords) {
  const RecordLayout layout = latency_record_layout();
  std::set<std::string> keys(layout.params.begin(), layout.params.end());
  for (const MetricSpec& m : layout.metrics) keys.insert(m.key);
  const TableLayout table = latency_table();
  for (const auto* columns : {&table.key_columns, &table.value_columns}) {
    for (const ColumnSpec& c : *columns) EXPECT_TRUE(keys.count(c.key)) << c.key;
  }
  EXPECT_EQ(table.value_columns.size(), layout.metrics.size());  // every metric shown
}

}  // namespace
}  // namespace distbench::latency
