// parse_report on malformed reports: each is one usage_error naming the field, never an exception out of
// nlohmann, a wrapped unsigned or a float converted to an int.
#include "core/report/json_model.hpp"

#include "core/error.hpp"
#include "core/report/per_rank.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace distbench {
namespace {

using json = ordered_json;

std::string source_file(const std::string& relative) {
  const char* root = std::getenv("DISTBENCH_SOURCE_ROOT");
  const std::string path = std::string(root != nullptr ? root : "..") + "/" + relative;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

json example_v2() { return json::parse(source_file("reports/example.json")); }
json example_v1() { return json::parse(source_file("tests/data/report_v1.json")); }

std::string reader_error(const std::string& text) {
  try {
    parse_report(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  ADD_FAILURE() << "no error for: " << text.substr(0, 200);
  return {};
}

TEST(JsonReader, TheExamplesRead) {
  EXPECT_EQ(parse_report(example_v2().dump()).schema_version, 2);
  EXPECT_EQ(parse_report(example_v1().dump()).schema_version, 1);
}

TEST(JsonReader, ANumberBeyondADoubleIsOneErrorWithItsOffset) {
  EXPECT_EQ(reader_error(R"({"schema_version": 1e400})"),
            "malformed distbench report: not valid JSON at byte 24: the number 1e400 is beyond the range of a double; "
            "pass a JSON report written by distbench --json");
}

TEST(JsonReader, ASyntaxErrorNamesItsOffset) {
  const auto msg = reader_error(R"({"schema_version": 2,)");
  EXPECT_EQ(msg.rfind("malformed distbench report: not valid JSON at byte 22 (line 1, column 22): syntax error", 0), 0u)
      << msg;
  EXPECT_EQ(msg.find("[json.exception"), std::string::npos) << msg;
}

TEST(JsonReader, SchemaVersionIsNotTruncated) {
  EXPECT_EQ(reader_error(R"({"schema_version": 4294967297})"),
            "unsupported report schema_version 4294967297: this distbench reads versions 1 to 4; read it with the "
            "distbench version that wrote it, or a newer one");
  EXPECT_EQ(reader_error(R"({"schema_version": 1.0})"),
            "field 'schema_version' must be an integer from "
            "-9223372036854775808 to 9223372036854775807, found 1.0");
}

TEST(JsonReader, NegativeSamplesAreRefused) {
  json j = example_v2();
  j["records"][3]["phases"][0]["time_us"]["samples"] = -1;
  EXPECT_EQ(reader_error(j.dump()),
            "field 'records[3].phases[0].time_us.samples' must be a non-negative integer, found -1");
}

TEST(JsonReader, AFloatInAnIntegerFieldIsRefused) {
  json j = example_v2();
  j["records"][0]["ops_per_sample"] = 1e300;
  EXPECT_EQ(reader_error(j.dump()),
            "field 'records[0].ops_per_sample' must be an integer from 1 to 2147483647, found 1e+300");
  j = example_v2();
  j["records"][0]["ranks"][0]["rank"] = 1e300;
  EXPECT_EQ(reader_error(j.dump()),
            "field 'records[0].ranks[0].rank' must be an integer from 0 to 2147483647, "
            "found 1e+300");
  j = example_v2();
  j["environment"]["world_size"] = 4294967298.0;
  EXPECT_NE(reader_error(j.dump()).find("field 'environment.world_size' must be"), std::string::npos);
}

TEST(JsonReader, Version1FieldsAreCheckedToo) {
  json j = example_v1();
  j["results"][0]["ops_per_sample"] = -5;
  EXPECT_EQ(reader_error(j.dump()),
            "field 'results[0].ops_per_sample' must be an integer from 1 to 2147483647, found -5");
  j = example_v1();
  j["results"][0]["time_us"]["outliers"] = 1.5;
  EXPECT_EQ(reader_error(j.dump()), "field 'results[0].time_us.outliers' must be a non-negative integer, found 1.5");
}

TEST(JsonReader, MistypedAndMissingFieldsAreNamed) {
  json j = example_v2();
  j["records"][2]["status"] = 7;
  EXPECT_EQ(reader_error(j.dump()), "field 'records[2].status' must be a string, found 7");
  j = example_v2();
  j["records"][1]["phases"][0].erase("samples_us");
  EXPECT_EQ(reader_error(j.dump()), "field 'records[1].phases[0].samples_us' is missing");
  j = example_v2();
  j["records"][1]["metrics"]["busbw_gbps"] = "fast";
  EXPECT_EQ(reader_error(j.dump()),
            "field 'records[1].metrics.busbw_gbps' must be a finite number or null, found \"fast\"");
  j = example_v2();
  j["signal"] = 1e300;
  EXPECT_EQ(reader_error(j.dump()), "field 'signal' must be an integer from 0 to 2147483647, found 1e+300");
}

// A report of one collective record of 3 ranks on two hosts, in the summary form (as --per-rank summary writes it).
json summary_form_report() {
  Record r;
  r.kind = "collective";
  r.set("bytes", std::int64_t{1024});
  r.set_metric("time_us", 12.5);
  const char* hosts[] = {"nodeA", "nodeA", "nodeB"};
  const double times[] = {11.0, 12.5, 30.25};
  for (int i = 0; i < 3; ++i) {
    r.ranks.push_back({i, hosts[i], {{"time_us", times[i]}, {"minor_faults_per_op", i == 0 ? 0.5 : 0.0}}});
  }
  condense_ranks(r, PerRankPolicy{PerRankForm::summary});
  RunInfo info;
  info.tool_version = "0.1.0";
  info.git_sha = "abc";
  info.status = "complete";
  info.world_size = 3;
  for (int i = 0; i < 3; ++i) info.ranks.push_back({i, hosts[i], i < 2 ? i : 0, ""});
  RunDescription d;
  d.benchmark = "collective";
  d.title = "allreduce";
  d.records.params = {"bytes"};
  d.records.metrics = {{"time_us", "us", ""}};
  d.records.rank_figures = {{"time_us", "us", ""}, {"minor_faults_per_op", "1/op", ""}};
  return make_report_json(info, d, {r});
}

TEST(JsonReader, TheSummaryFormReadsBackAsWritten) {
  const json j = summary_form_report();
  EXPECT_EQ(j["schema_version"], kReportSchemaVersion);
  const json& written = j["records"][0];
  EXPECT_FALSE(written.contains("ranks"));
  EXPECT_EQ(written["rank_summary"]["ranks"], 3);
  EXPECT_EQ(written["rank_summary"]["figures"]["time_us"]["highest"][0],
            json({{"rank", 2}, {"host", "nodeB"}, {"value", 30.25}}));

  const ParsedReport back = parse_report(j.dump());
  ASSERT_EQ(back.records.size(), 1u);
  const Record& r = back.records[0];
  EXPECT_TRUE(r.ranks.empty());
  EXPECT_EQ(r.rank_summary.ranks, 3u);
  ASSERT_EQ(r.rank_summary.figures.size(), 2u);
  const FigureSummary& time = r.rank_summary.figures[0];
  EXPECT_EQ(time.key, "time_us");
  EXPECT_EQ(time.over_ranks.ranks, 3u);
  EXPECT_EQ(time.over_ranks.min, 11.0);
  EXPECT_EQ(time.over_ranks.median, 12.5);
  EXPECT_EQ(time.over_ranks.max, 30.25);
  EXPECT_DOUBLE_EQ(time.over_ranks.mean, (11.0 + 12.5 + 30.25) / 3);
  EXPECT_DOUBLE_EQ(time.over_ranks.p95, 28.475);  // numpy.percentile([11, 12.5, 30.25], 95)
  ASSERT_EQ(time.over_ranks.highest.size(), 3u);
  EXPECT_EQ(time.over_ranks.highest[0].rank, 2);
  EXPECT_EQ(time.over_ranks.highest[0].host, "nodeB");
  EXPECT_EQ(time.over_ranks.highest[0].value, 30.25);
  EXPECT_EQ(time.over_ranks.lowest[0].rank, 0);
  EXPECT_EQ(time.over_ranks.lowest[0].host, "nodeA");
  EXPECT_EQ(r.rank_summary.figures[1].over_ranks.highest[0].host, "nodeA");
  // and written again from what was read, the same text: report --format json keeps the summary as it was
  EXPECT_EQ(record_json(r).dump(), written.dump());
}

TEST(JsonReader, ARecordWithNeitherFormIsMalformed) {
  json j = summary_form_report();
  j["records"][0].erase("rank_summary");
  EXPECT_EQ(reader_error(j.dump()), "field 'records[0].ranks' is missing");
  j = summary_form_report();
  j["records"][0]["rank_summary"]["figures"]["time_us"]["highest"][0].erase("host");
  EXPECT_EQ(reader_error(j.dump()), "field 'records[0].rank_summary.figures.time_us.highest[0].host' is missing");
  j = summary_form_report();
  j["records"][0]["rank_summary"]["figures"]["time_us"]["lowest"][1]["rank"] = -1;
  EXPECT_EQ(reader_error(j.dump()),
            "field 'records[0].rank_summary.figures.time_us.lowest[1].rank' must be an integer from 0 to 2147483647, "
            "found -1");
}

TEST(JsonReader, AVersion3ReportWithEveryRankStillReads) {
  json j = summary_form_report();
  j["schema_version"] = 3;
  j["records"][0].erase("rank_summary");
  j["records"][0]["ranks"] = json::array({{{"rank", 0}, {"host", "nodeA"}, {"time_us", 11.0}}});
  const ParsedReport back = parse_report(j.dump());
  EXPECT_EQ(back.schema_version, 3);
  ASSERT_EQ(back.records[0].ranks.size(), 1u);
  EXPECT_EQ(back.records[0].ranks[0].host, "nodeA");
  EXPECT_TRUE(back.records[0].rank_summary.empty());
}

}  // namespace
}  // namespace distbench
