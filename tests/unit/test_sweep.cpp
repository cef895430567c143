// The collective sweep's plan-level logic: its groups, the root check, the buffers it needs, and how its cases
// become records, a table and a summary (benchmarks/collective).
#include "benchmarks/collective/collective_benchmark.hpp"
#include "benchmarks/collective/collective_record.hpp"
#include "benchmarks/collective/sweep.hpp"
#include "core/error.hpp"
#include "core/report/table.hpp"
#include "tests/support/collective_records.hpp"
#include "tests/support/schema_doc.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <set>

#include <cmath>

namespace distbench::collective {
namespace {

TEST(Sweep, PartitionIsTheWorldOrConsecutiveGroups) {
  SweepPlan plan;
  EXPECT_EQ(sweep_partition(plan, 4).groups, (std::vector<std::vector<int>>{{0, 1, 2, 3}}));
  plan.group_size = 2;
  EXPECT_EQ(sweep_partition(plan, 4).groups, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  plan.group_size = 3;
  EXPECT_THROW(sweep_partition(plan, 4), Error);
}

TEST(Sweep, RootMustBeInTheGroup) {
  SweepPlan plan;
  plan.collective = Collective::broadcast;
  plan.root = 2;
  EXPECT_NO_THROW(check_root(plan, 3));
  try {
    check_root(plan, 2);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_STREQ(e.what(),
                 "-r/--root 2 is outside the group of 2 ranks; pick a root in 0..1, or -1 for each of them in turn");
  }
  plan.root = kAllRoots;  // -r -1: each rank in turn, whatever the group
  EXPECT_NO_THROW(check_root(plan, 2));
  plan.root = -2;
  EXPECT_THROW(check_root(plan, 2), Error);
  plan.collective = Collective::allreduce;  // no root: nothing to check
  EXPECT_NO_THROW(check_root(plan, 2));
}

TEST(Sweep, BufferBytesCoverTheLargestCaseOfEveryPlacement) {
  SweepPlan plan;
  plan.sizes = {1024, 1048576};
  plan.dtypes = {DType::float32};
  // allreduce: out-of-place needs a send and a receive buffer of S; in-place only the receive buffer.
  EXPECT_EQ(sweep_buffer_bytes(plan, 4), 2u * 1048576);
  plan.placements = {Placement::in_place};
  EXPECT_EQ(sweep_buffer_bytes(plan, 4), 1048576u);
  // allgather, out-of-place: each rank sends S / n and receives S.
  plan.collective = Collective::allgather;
  plan.placements = {Placement::out_of_place};
  EXPECT_EQ(sweep_buffer_bytes(plan, 4), 1048576u / 4 + 1048576u);
}

// OSU page-aligns its buffers (posix_memalign at the page size), malloc puts IMB's 16 B past a page: at 4 KiB the
// offset alone made a broadcast 12 % slower, and `--timing osu` read 15 % above osu_bcast there.
TEST(Sweep, HostBuffersStartAtAPageWhereOsusMethodTimesThem) {
  SweepPlan plan;
  plan.timings = {Timing::sampled};
  EXPECT_EQ(buffer_placement(plan), HostPlacement::malloc);
  plan.timings = {Timing::imb};
  EXPECT_EQ(buffer_placement(plan), HostPlacement::malloc);
  plan.timings = {Timing::osu};
  EXPECT_EQ(buffer_placement(plan), HostPlacement::page_start);
  plan.timings = {Timing::sampled, Timing::osu};  // one set of buffers for the list: the method compared as OSU runs
  EXPECT_EQ(buffer_placement(plan), HostPlacement::page_start);
}

// issue 16: -b 8388608T (2^63 bytes) at one rank summed two 2^63-byte buffers to 0, which passed the memory check.
TEST(Sweep, BufferBytesNeverWrap) {
  SweepPlan plan;
  plan.sizes = {1ULL << 63};
  plan.dtypes = {DType::float32};
  EXPECT_EQ(sweep_buffer_bytes(plan, 1), std::numeric_limits<std::uint64_t>::max());
}

CaseResult measured_case(std::string placement, double busbw, std::int64_t wrong) {
  CaseResult r = test_support::allreduce_case(std::move(placement), 64, 2);
  r.busbw = busbw;
  r.wrong = wrong;
  r.time_shown = 2e-6;
  r.rank_means = {1e-6, 3e-6};
  r.os_per_op = {{1, 0, 2, 0}, {0, 0.5, 0, 0.25}};
  return r;
}

// Every shape's metrics (the layout of a sweep with every option that adds one).
RecordLayout widest_layout() {
  return collective_record_layout({.tensor_list = true, .cycles = true, .timestamps = true, .device_beside = true});
}

TEST(CollectiveRecord, TheManualDocumentsEachMetricWithItsUnit) {
  std::map<std::string, std::string> declared;
  for (const MetricSpec& m : widest_layout().metrics) declared[m.key] = m.unit;
  EXPECT_EQ(test_support::documented_metrics("### Collective records"), declared);
}

TEST(CollectiveRecord, EachColumnOfTheTableIsAParameterOrMetricOfTheRecords) {
  SweepPlan plan;
  plan.cycles = 2;
  plan.timestamps = true;
  plan.show_faults = true;
  plan.columns = {"median", "p99", "noise", "device", "samples"};
  const RecordLayout layout = widest_layout();
  std::set<std::string> keys(layout.params.begin(), layout.params.end());
  for (const MetricSpec& m : layout.metrics) keys.insert(m.key);
  const TableLayout table = collective_table(plan);
  for (const auto* columns : {&table.key_columns, &table.value_columns}) {
    for (const ColumnSpec& c : *columns) {
      if (c.phase.empty()) {
        EXPECT_TRUE(keys.count(c.key)) << c.key;
      }
    }
  }
  EXPECT_EQ(table.value_columns.size(), 11u);  // time, algbw, busbw, #wrong, the five --columns, faults, csw
}

TEST(CollectiveRecord, ParametersMetricsAndEachRanksFigures) {
  const Record r = collective_record(measured_case("in-place", 1.5, -1), {"node-a", "node-b"});
  EXPECT_EQ(r.kind, "collective");
  std::vector<std::string> keys;
  for (const Param& p : r.params) keys.push_back(p.key);
  EXPECT_EQ(keys, collective_record_layout().params);
  EXPECT_EQ(r.param_text("placement"), "in-place");
  EXPECT_EQ(std::get<std::int64_t>(*r.param("bytes")), 64);
  EXPECT_DOUBLE_EQ(r.metric("time_us"), 2.0);
  EXPECT_TRUE(std::isnan(r.metric("wrong")));  // not checked
  EXPECT_DOUBLE_EQ(r.metric("faults_per_op"), 1.0);
  EXPECT_DOUBLE_EQ(r.metric("switches_per_op"), 2.0);
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.ranks[1].host, "node-b");
  EXPECT_EQ(r.ranks[1].figures[0].key, "time_us");
  EXPECT_DOUBLE_EQ(r.ranks[1].figures[0].value, 3.0);
  ASSERT_NE(r.phase("time"), nullptr);

  CaseResult skipped = measured_case("out-of-place", 0, 0);
  skipped.status = "skipped";
  skipped.skip_reason = "no";
  const Record s = collective_record(skipped, {});
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.metrics.empty());
  EXPECT_TRUE(s.phases.empty());
}

// -N 2 gives each record its cycle; -S its start time. The layout names both only when the sweep has them.
TEST(CollectiveRecord, CycleAndStartTimeWhenTheSweepHasThem) {
  CaseResult c = measured_case("in-place", 1.5, 0);
  c.cycle = 2;
  c.start_time_s = 1795423778.125;
  const Record r = collective_record(c, {});
  std::vector<std::string> keys;
  for (const Param& p : r.params) keys.push_back(p.key);
  const RecordLayout layout = collective_record_layout({.cycles = true, .timestamps = true});
  EXPECT_EQ(keys, layout.params);
  EXPECT_EQ(keys.back(), "cycle");
  EXPECT_EQ(r.param_text("cycle"), "2");
  EXPECT_DOUBLE_EQ(r.metric("start_time_s"), 1795423778.125);
  EXPECT_EQ(layout.metrics.back().key, "start_time_s");
  EXPECT_EQ(collective_record_layout().params.back(), "groups");

  const Record plain = collective_record(measured_case("in-place", 1.5, 0), {});
  EXPECT_EQ(plain.param("cycle"), nullptr);
  EXPECT_TRUE(std::isnan(plain.metric("start_time_s")));
}

TEST(CollectiveSummary, AverageBusBandwidthAndWrongElementsOverMeasuredRecords) {
  const auto recs = collective_records({measured_case("out-of-place", 1.0, 0), measured_case("in-place", 2.0, 3)}, {});
  const auto items = collective_summary(recs);
  ASSERT_EQ(items.size(), 2u);
  // nccl-tests' footer first, as it prints it: "Out of bounds values", then "Avg bus bandwidth" (%g) and "#"
  EXPECT_EQ(items[0].key, "wrong");
  EXPECT_EQ(items[0].text, "3 FAILED");
  EXPECT_EQ(items[0].console, "# Out of bounds values : 3 FAILED");
  EXPECT_EQ(items[1].key, "avg_busbw_gbps");
  EXPECT_DOUBLE_EQ(items[1].value, 1.5);
  EXPECT_EQ(items[1].text, "1.50 GB/s");
  EXPECT_EQ(items[1].console, "# Avg bus bandwidth    : 1.5 \n#");
  const auto none = collective_summary({});
  EXPECT_EQ(none[0].text, "not checked");
  EXPECT_EQ(none[1].text, "N/A (nothing measured)");
}

TEST(CollectiveSummary, OneAveragePerDatatypeAndOperatorWhenThereAreSeveral) {
  std::vector<CaseResult> cases = {measured_case("out-of-place", 1.0, 0), measured_case("in-place", 3.0, 0)};
  cases.push_back(measured_case("out-of-place", 10.0, 0));
  cases.back().dtype = "int8";
  cases.push_back(measured_case("out-of-place", 20.0, 0));
  cases.back().dtype = "int8";
  cases.back().op = "max";
  const auto items = collective_summary(collective_records(cases, {}));
  ASSERT_EQ(items.size(), 5u);
  EXPECT_EQ(items[0].text, "0 OK");
  EXPECT_EQ(items[1].key, "avg_busbw_gbps");
  EXPECT_DOUBLE_EQ(items[1].value, 8.5);
  EXPECT_EQ(items[2].key, "avg_busbw_gbps.float32.sum");
  EXPECT_EQ(items[2].label, "Average busbw, float32 sum");
  EXPECT_TRUE(items[2].console.empty());  // distbench's own lines after nccl-tests' footer, as "# label: text"
  EXPECT_DOUBLE_EQ(items[2].value, 2.0);
  EXPECT_EQ(items[3].key, "avg_busbw_gbps.int8.sum");
  EXPECT_DOUBLE_EQ(items[3].value, 10.0);
  EXPECT_EQ(items[4].key, "avg_busbw_gbps.int8.max");
}

TEST(CollectiveTable, ColumnsOnRequestAndTheNoiseColumnWithANoiseTarget) {
  SweepPlan plan;
  plan.columns = {"samples", "median"};
  TableLayout t = collective_table(plan);
  ASSERT_EQ(t.value_columns.size(), 6u);
  EXPECT_EQ(t.value_columns[4].key, "samples");
  EXPECT_EQ(t.value_columns[4].phase, "time");
  EXPECT_EQ(t.value_columns[5].key, "median_us");
  plan.columns.clear();
  plan.stopping.max_noise = 1;
  t = collective_table(plan);
  ASSERT_EQ(t.value_columns.size(), 5u);
  EXPECT_EQ(t.value_columns[4].key, "noise_pct");
}

TEST(CollectiveTable, PlacementsSideBySideAndFaultColumnsOnRequest) {
  SweepPlan plan;
  TableLayout t = collective_table(plan);
  EXPECT_EQ(t.split_key, "placement");
  EXPECT_EQ(t.split_values, (std::vector<std::string>{"out-of-place", "in-place"}));
  EXPECT_EQ(t.value_columns.size(), 4u);
  plan.show_faults = true;
  plan.placements = {Placement::in_place};
  t = collective_table(plan);
  EXPECT_EQ(t.split_values, (std::vector<std::string>{"in-place"}));
  ASSERT_EQ(t.value_columns.size(), 6u);
  EXPECT_TRUE(t.value_columns[4].detail);
}

// --timing a,b: a group per placement and method, the methods next to each other; each record falls in its own.
TEST(CollectiveTable, EachTimingMethodAGroupWithinItsPlacement) {
  SweepPlan plan;
  plan.timings = {Timing::osu, Timing::sampled};
  const TableLayout t = collective_table(plan);
  EXPECT_EQ(t.split_key, "placement+timing");
  EXPECT_EQ(t.split_values,
            (std::vector<std::string>{"out-of-place osu", "out-of-place sampled", "in-place osu", "in-place sampled"}));
  std::vector<Record> row;
  for (const char* placement : {"in-place", "out-of-place"}) {
    for (const char* timing : {"sampled", "osu"}) {
      Record r;
      r.set("placement", std::string(placement)).set("timing", std::string(timing));
      r.set_metric("wrong", 0);
      row.push_back(r);
    }
  }
  EXPECT_EQ(split_text(row[1], t.split_key), "in-place osu");
  const TableRow cells = table_row(t, row);
  ASSERT_EQ(cells.groups.size(), 4u);
  // each group's #wrong cell came from a record (a group without one shows "-" in every cell)
  for (const auto& group : cells.groups) EXPECT_EQ(group.at(3), "0");
}

}  // namespace
}  // namespace distbench::collective
