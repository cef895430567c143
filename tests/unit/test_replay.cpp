// A report read back and replayed through a reporter is what that reporter wrote while the run went on: the Markdown
// of `distbench report --format md` is the run's --md byte for byte, and so is the CSV (a collective split by
// placement, a skipped record, a section after the table, text that Markdown must make inert, a failed run).
#include "core/report/replay.hpp"

#include "core/report/csv_reporter.hpp"
#include "core/report/json_reporter.hpp"
#include "core/report/markdown_reporter.hpp"
#include "tests/support/collective_records.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace distbench {
namespace {

using collective::CaseResult;
using collective::SweepPlan;

namespace fs = std::filesystem;

std::string file_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CaseResult replayed_case(std::string placement, std::uint64_t bytes, double time_us) {
  CaseResult r = test_support::allreduce_case(std::move(placement), bytes, 2);
  r.samples = {time_us * 1e-6, time_us * 1.1e-6};
  r.time = {2, time_us * 1.05e-6, time_us * 1.05e-6, time_us * 1e-6, time_us * 1.1e-6, 0, 0, 0, 0, 0, 0, 0, 0};
  r.time_shown = time_us * 1e-6;
  r.algbw = 4.1901;
  r.busbw = 4.1901;
  r.wrong = 0;
  r.os_per_op = {{2, 0, 0.5, 0}, {0, 0, 0, 1.25}};
  return r;
}

class Replay : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) / ("distbench_replay_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
};

TEST_F(Replay, MarkdownAndCsvOfTheReportAreTheRunsOwn) {
  RunInfo info;
  info.tool_version = "0.1.0";
  info.git_sha = "abc";
  info.world_size = 2;
  info.ranks = {{0, "node<a>|1", 0}, {1, "node<a>|1", 1}};
  SweepPlan plan;
  plan.backend = "mpi";
  plan.sizes = {8, 1024};
  plan.stopping.max_time_s = 0;
  plan.show_faults = true;
  RunDescription d = test_support::describe(plan, info);
  d.title = "all<reduce>|x";
  d.sections = [](const std::vector<Record>& records) {
    return std::vector<TextSection>{{"Per host", {"node<a>|1: " + std::to_string(records.size()) + " records"}}};
  };

  const fs::path js = dir_ / "run.json", md = dir_ / "run.md", csv = dir_ / "run.csv";
  JsonReporter json(js.string());
  MarkdownReporter markdown(md.string());
  CsvReporter table(csv.string());
  const std::vector<Reporter*> all = {&json, &markdown, &table};
  for (Reporter* r : all) r->begin(info, d);
  CaseResult skipped = replayed_case("in-place", 1024, 0);
  skipped.status = "skipped";
  skipped.skip_reason = "not on one rank";
  const std::vector<std::vector<Record>> rows = {
      test_support::records({replayed_case("out-of-place", 8, 12.5), replayed_case("in-place", 8, 13.25)}),
      test_support::records({replayed_case("out-of-place", 1024, 250.25), skipped})};
  for (const auto& row : rows) {
    for (Reporter* r : all) r->add(row);
  }
  info.status = "failed";
  info.error = "allreduce 1 KiB: <timed out> | rank 1";
  for (Reporter* r : all) r->end(info);

  std::ifstream in(js);
  std::stringstream text;
  text << in.rdbuf();
  const ParsedReport report = parse_report(text.str());
  ASSERT_TRUE(report.has_table());
  EXPECT_EQ(report.rows, (std::vector<std::size_t>{2, 2}));
  EXPECT_EQ(report.facts, d.facts);
  EXPECT_EQ(report.table.split_key, "placement");
  EXPECT_EQ(report.table.value_columns.size(), d.table.value_columns.size());
  ASSERT_EQ(report.plots.size(), 2u);
  EXPECT_EQ(report.plots[1].band_phase, "time");
  ASSERT_EQ(report.sections.size(), 1u);
  EXPECT_EQ(report.sections[0].lines, std::vector<std::string>{"node<a>|1: 4 records"});
  ASSERT_FALSE(report.summary_items.empty());
  EXPECT_EQ(report.summary_items[0].label, d.summarize(report.records)[0].label);

  MarkdownReporter markdown_again{std::string(kInMemoryReport)};
  replay(report, markdown_again);
  const std::string live = file_text(md);
  EXPECT_EQ(markdown_again.contents(), live);
  // what Markdown must not take as markup is made inert, in the table and the footer alike
  EXPECT_EQ(live.rfind("## distbench all&lt;reduce&gt;\\|x\n", 0), 0u) << live;
  EXPECT_NE(live.find("(allreduce 1 KiB: &lt;timed out&gt; \\| rank 1)"), std::string::npos) << live;

  CsvReporter csv_again{std::string(kInMemoryReport)};
  replay(report, csv_again);
  EXPECT_EQ(csv_again.contents(), file_text(csv));
  // a view made in memory writes nothing
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 3);
}

// A section's lines go in a code block as they are, its fence longer than any run of backticks they hold.
TEST(ReplayMarkdown, ASectionKeepsItsLinesInsideItsFence) {
  RunDescription d;
  d.title = "t";
  d.sections = [](const std::vector<Record>&) {
    return std::vector<TextSection>{{"S", {"a -> b", "```", "x ```` y"}}};
  };
  MarkdownReporter md{std::string(kInMemoryReport)};
  RunInfo info;
  md.begin(info, d);
  info.status = "complete";
  md.end(info);
  const std::string text = md.contents();
  EXPECT_NE(text.find("\n### S\n\n`````\na -> b\n```\nx ```` y\n`````\n"), std::string::npos) << text;
}

// A report whose records a tool edited keeps its table, a record per row.
TEST(ReplayRows, RowsThatNoLongerHoldTheRecordsAreDropped) {
  RunDescription d;
  d.benchmark = d.title = "t";
  Record r;
  r.kind = d.benchmark;
  const std::vector<Record> recs = {r, r, r};
  RunInfo info;
  ordered_json j = make_report_json(info, d, recs, {2, 1});
  EXPECT_EQ(parse_report(j.dump()).rows, (std::vector<std::size_t>{2, 1}));
  j["records"].erase(0);
  EXPECT_TRUE(parse_report(j.dump()).rows.empty());
  j["table"]["rows"] = {9007199254740992, 9007199254740992};  // no wrap-around to a fit
  EXPECT_TRUE(parse_report(j.dump()).rows.empty());
}

// A report from before the table was kept (version 2) replays a record per row, its summary's figures by their keys.
TEST(ReplayDescription, AnOlderReportHasNoTableAndItsFiguresAsItems) {
  ParsedReport old;
  old.schema_version = 2;
  old.benchmark = "latency";
  old.title = "latency";
  old.summary = {{"records", 2}, {"measured", 2}, {"skipped", 0}, {"noise_missed", 0}, {"smallest_latency_us", 1.5}};
  const RunDescription d = description_of(old);
  EXPECT_FALSE(old.has_table());
  const std::vector<SummaryItem> items = d.summarize({});
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].key, "smallest_latency_us");
  EXPECT_DOUBLE_EQ(items[0].value, 1.5);
  EXPECT_EQ(items[0].text, "1.5");
}

}  // namespace
}  // namespace distbench
