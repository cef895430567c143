// The JSON report: schema keys, round trip through parse_report_json, status transitions, incremental atomic
// rewrites, and the checks on the output path.
#include "core/error.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/json_model.hpp"
#include "core/report/json_reporter.hpp"
#include "tests/support/report_pace.hpp"

#include "tests/support/collective_records.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace distbench {
namespace {

using collective::CaseResult;
using collective::collective_record_layout;
using collective::SweepPlan;
using test_support::describe;
using test_support::records;

namespace fs = std::filesystem;

RunInfo sample_info() {
  RunInfo info;
  info.tool_version = "0.1.0";
  info.git_sha = "0123456789ab";
  info.argv = {"distbench", "allreduce", "-b", "8", "-e", "1M", "--json", "run.json"};
  info.start_time = "2024-05-01T10:00:00Z";
  info.world_size = 2;
  info.ranks = {{0, "node-a", 0}, {1, "node-b", 0}};
  info.versions = {{"mpi", "Open MPI v4.1.4"}, {"nccl", "2.28.9"}};  // sorted: JSON objects keep keys sorted
  info.environment = {{"NCCL_DEBUG", "WARN"}, {"OMPI_MCA_btl", "self,vader,tcp"}};
  info.startup = startup_record({{0, "node-a", {0.05, 0.01, 0.4, 0.001, 0.002, 0.003, 0.466}, 0},
                                 {1, "node-b", {0.04, 0.01, 0.3, 0.001, 0.002, 0.003, 0.356}, 0.11}});
  return info;
}

SweepPlan sample_plan() {
  SweepPlan plan;
  plan.backend = "mpi";
  plan.sizes = {8, 1024, 1048576};
  plan.dtypes = {DType::float32, DType::bfloat16};
  plan.ops = {ReduceOp::sum, ReduceOp::max};
  plan.stopping.max_noise = 1.5;
  plan.average = RankAverage::max;
  plan.backend_options.agg_iters = 4;
  return plan;
}

CaseResult sample_result(std::string placement, std::uint64_t bytes) {
  CaseResult r = test_support::allreduce_case(std::move(placement), bytes, 2);
  r.ops_per_sample = 4;
  r.samples = {1.1e-5, 1.3e-5, 1.2e-5, 1.234567890123e-5};
  r.time = {4, 1.21e-5, 1.2086419725e-5, 1.1e-5, 1.3e-5, 8.2e-7, 1.298e-5, 5.5e-7, 6.78, 0, 1.1e-5, 1.3e-5, 8.26};
  r.os_per_op = {{0.5, 0, 2.25, 0.125}, {8192, 1, 0, 3}};
  r.rank_time = {1.19e-5, 1.2086419725e-5, 1.25e-5, 1.2e-5};
  r.time_shown = r.rank_time.max;
  r.algbw = static_cast<double>(bytes) / r.time_shown / 1e9;
  r.busbw = r.algbw;
  r.wrong = 0;
  r.noise_target_met = false;
  return r;
}

void expect_close(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) {
    EXPECT_TRUE(std::isnan(a) && std::isnan(b)) << a << " vs " << b;
    return;
  }
  EXPECT_NEAR(a, b, 1e-9 * std::max(std::abs(a), std::abs(b)));
}

void expect_same(const Summary& a, const Summary& b) {
  EXPECT_EQ(a.samples, b.samples);
  EXPECT_EQ(a.outliers, b.outliers);
  for (auto [x, y] : {std::pair{a.median, b.median},
                      {a.mean, b.mean},
                      {a.iqm, b.iqm},
                      {a.min, b.min},
                      {a.max, b.max},
                      {a.stddev, b.stddev},
                      {a.p99, b.p99},
                      {a.mad, b.mad},
                      {a.noise, b.noise},
                      {a.median_low, b.median_low},
                      {a.median_high, b.median_high},
                      {a.median_ci, b.median_ci}}) {
    expect_close(x, y);
  }
}

void expect_same(const Record& a, const Record& b) {
  EXPECT_EQ(a.kind, b.kind);
  ASSERT_EQ(a.params.size(), b.params.size());
  for (std::size_t i = 0; i < a.params.size(); ++i) {
    EXPECT_EQ(a.params[i].key, b.params[i].key);
    EXPECT_EQ(a.params[i].value, b.params[i].value) << a.params[i].key;
  }
  EXPECT_EQ(a.ops_per_sample, b.ops_per_sample);
  EXPECT_EQ(a.noise_target_met, b.noise_target_met);
  ASSERT_EQ(a.phases.size(), b.phases.size());
  for (std::size_t i = 0; i < a.phases.size(); ++i) {
    EXPECT_EQ(a.phases[i].name, b.phases[i].name);
    expect_same(a.phases[i].summary, b.phases[i].summary);
    const RankSpread &x = a.phases[i].rank_spread, &y = b.phases[i].rank_spread;
    for (auto [u, v] : {std::pair{x.min, y.min}, {x.avg, y.avg}, {x.max, y.max}, {x.rank0, y.rank0}})
      expect_close(u, v);
    ASSERT_EQ(a.phases[i].samples.size(), b.phases[i].samples.size());
    for (std::size_t s = 0; s < a.phases[i].samples.size(); ++s)
      expect_close(a.phases[i].samples[s], b.phases[i].samples[s]);
  }
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  for (std::size_t i = 0; i < a.metrics.size(); ++i) {
    EXPECT_EQ(a.metrics[i].key, b.metrics[i].key);
    expect_close(a.metrics[i].value, b.metrics[i].value);
  }
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (std::size_t i = 0; i < a.ranks.size(); ++i) {
    EXPECT_EQ(a.ranks[i].rank, b.ranks[i].rank);
    EXPECT_EQ(a.ranks[i].host, b.ranks[i].host);
    ASSERT_EQ(a.ranks[i].figures.size(), b.ranks[i].figures.size());
    for (std::size_t f = 0; f < a.ranks[i].figures.size(); ++f) {
      EXPECT_EQ(a.ranks[i].figures[f].key, b.ranks[i].figures[f].key);
      expect_close(a.ranks[i].figures[f].value, b.ranks[i].figures[f].value);
    }
  }
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.skip_reason, b.skip_reason);
}

Record sample_record(std::string placement, std::uint64_t bytes) {
  return records({sample_result(std::move(placement), bytes)}, {"node-a", "node-b"}).front();
}

void expect_same(const RunInfo& a, const RunInfo& b) {
  EXPECT_EQ(a.tool_version, b.tool_version);
  EXPECT_EQ(a.git_sha, b.git_sha);
  EXPECT_EQ(a.argv, b.argv);
  EXPECT_EQ(a.start_time, b.start_time);
  EXPECT_EQ(a.end_time, b.end_time);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.signal, b.signal);
  EXPECT_EQ(a.failed_step, b.failed_step);
  EXPECT_EQ(a.world_size, b.world_size);
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (std::size_t i = 0; i < a.ranks.size(); ++i) {
    EXPECT_EQ(a.ranks[i].rank, b.ranks[i].rank);
    EXPECT_EQ(a.ranks[i].host, b.ranks[i].host);
    EXPECT_EQ(a.ranks[i].local_rank, b.ranks[i].local_rank);
  }
  EXPECT_EQ(a.versions, b.versions);
  EXPECT_EQ(a.environment, b.environment);
  EXPECT_EQ(a.backend, b.backend);
  ASSERT_EQ(a.startup.phases.size(), b.startup.phases.size());
  for (std::size_t p = 0; p < a.startup.phases.size(); ++p) {
    EXPECT_EQ(a.startup.phases[p].max, b.startup.phases[p].max);
    EXPECT_EQ(a.startup.phases[p].highest.front().host, b.startup.phases[p].highest.front().host);
  }
  EXPECT_EQ(a.startup.late.max, b.startup.late.max);
  ASSERT_EQ(a.startup.ranks.size(), b.startup.ranks.size());
  ASSERT_EQ(a.warnings.size(), b.warnings.size());
  for (std::size_t i = 0; i < a.warnings.size(); ++i) {
    EXPECT_EQ(a.warnings[i].code, b.warnings[i].code);
    EXPECT_EQ(a.warnings[i].message, b.warnings[i].message);
    EXPECT_EQ(a.warnings[i].detail, b.warnings[i].detail);
  }
}

void expect_keys(const ordered_json& j, std::initializer_list<const char*> keys) {
  ASSERT_TRUE(j.is_object()) << j.dump();
  for (const char* k : keys) EXPECT_TRUE(j.contains(k)) << "missing key '" << k << "' in " << j.dump();
  EXPECT_EQ(j.size(), keys.size()) << j.dump();
}

// ---- the model ----

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

RunDescription sample_description() { return describe(sample_plan(), sample_info()); }

ordered_json sample_report(const std::vector<Record>& recs) {
  return make_report_json(sample_info(), sample_description(), recs);
}

TEST(JsonModel, RoundTripKeepsEveryField) {
  RunInfo info = sample_info();
  info.backend = "mpi";
  info.end_time = "2024-05-01T10:05:00Z";
  info.status = "interrupted";
  info.error = "interrupted by signal 15 (SIGTERM) during allreduce 8 B: timed samples";
  info.signal = 15;
  info.failed_step = "check count";
  info.warnings = {{"noisy_median", "2 of 3 cases are noisy; rerun", "2 of 3 cases have a median +/-149850.0%"},
                   {"page_faults", "faults; use --malloc-reuse"}};
  CaseResult unchecked = sample_result("in-place", 1048576);
  unchecked.wrong = -1;
  unchecked.time.noise = std::nan("");  // no JSON number: written as null, read back as NaN
  CaseResult skipped = sample_result("out-of-place", 8);
  skipped.status = "skipped";
  skipped.skip_reason = "needs 4 ranks";
  std::vector<Record> recs = records({sample_result("out-of-place", 1024), unchecked, skipped}, {"node-a", "node-b"});
  Record other;  // a record of another kind, with a number parameter and two phases
  other.kind = "test";
  other.set("ratio", 0.25).set("name", std::string("x")).set("n", std::int64_t{-3});
  other.phases = {{"reduce", {1e-6, 2e-6}, summarize(std::vector<double>{1e-6, 2e-6}), {1e-6, 1.5e-6, 2e-6, 1e-6}},
                  {"update", {3e-6}, summarize(std::vector<double>{3e-6}), {}}};
  other.set_metric("gbps", 1.5).set_metric("none", kNotMeasured);
  recs.push_back(other);

  const RunDescription d = sample_description();
  const ParsedReport parsed = parse_report(make_report_json(info, d, recs).dump(2));
  EXPECT_EQ(parsed.schema_version, kReportSchemaVersion);
  expect_same(parsed.info, info);
  EXPECT_EQ(parsed.benchmark, "collective");
  EXPECT_EQ(parsed.title, "allreduce");
  EXPECT_EQ(parsed.config, d.config);
  EXPECT_EQ(layout_json(parsed.layout), layout_json(d.records));
  ASSERT_EQ(parsed.records.size(), recs.size());
  for (std::size_t i = 0; i < recs.size(); ++i) expect_same(parsed.records[i], recs[i]);
  EXPECT_EQ(parsed.summary["records"], 4);
  EXPECT_EQ(parsed.summary["skipped"], 1);
  EXPECT_EQ(parsed.summary["wrong"], 0);
}

TEST(JsonModel, SchemaKeysAndUnits) {
  const ordered_json j = sample_report({sample_record("out-of-place", 1024)});
  expect_keys(
      j, {"schema_version", "tool",    "argv",    "start_time",  "end_time", "status",        "error",    "signal",
          "failed_step",    "backend", "startup", "environment", "warnings", "benchmark",     "title",    "facts",
          "config",         "layout",  "table",   "plots",       "summary",  "summary_items", "sections", "records"});
  EXPECT_EQ(j["schema_version"], 4);
  EXPECT_EQ(j["tool"], ordered_json({{"name", "distbench"}, {"version", "0.1.0"}, {"git_sha", "0123456789ab"}}));
  EXPECT_TRUE(j["end_time"].is_null());
  EXPECT_TRUE(j["error"].is_null());
  EXPECT_EQ(j["status"], "incomplete");
  EXPECT_EQ(j["benchmark"], "collective");
  expect_keys(j["environment"], {"world_size", "ranks", "versions", "variables"});
  EXPECT_EQ(j["environment"]["ranks"][1], ordered_json({{"rank", 1}, {"host", "node-b"}, {"local_rank", 0}}));
  EXPECT_EQ(j["environment"]["variables"]["NCCL_DEBUG"], "WARN");

  const ordered_json& config = j["config"];
  expect_keys(config, {"collective",      "backend",        "sizes",       "dtypes",     "ops",          "placements",
                       "tensors",         "fusions",        "root",        "group_size", "warmup_iters", "stopping",
                       "check",           "check_iters",    "cycles",      "timestamps", "cpu_time",     "timing",
                       "timings",         "call_form",      "block_iters", "average",    "timeout_s",    "malloc_reuse",
                       "bandwidth_floor", "backend_options"});
  EXPECT_EQ(config["collective"], "allreduce");
  EXPECT_EQ(config["dtypes"], ordered_json({"float32", "bfloat16"}));
  EXPECT_EQ(config["ops"], ordered_json({"sum", "max"}));
  EXPECT_EQ(config["sizes"], ordered_json({8, 1024, 1048576}));
  EXPECT_EQ(config["average"], "max");
  EXPECT_EQ(config["call_form"], "block");  // distbench's own timing: MPI_Reduce_scatter_block
  EXPECT_EQ(config["stopping"]["max_noise"], 1.5);
  EXPECT_EQ(config["backend_options"]["agg_iters"], 4);

  expect_keys(j["layout"], {"params", "phases", "metrics", "rank_figures"});
  EXPECT_EQ(j["layout"]["params"], ordered_json({"collective", "backend", "dtype", "op", "placement", "root", "bytes",
                                                 "count", "nranks", "group", "groups"}));
  EXPECT_EQ(j["layout"]["metrics"][2]["key"], "busbw_gbps");
  EXPECT_EQ(j["layout"]["metrics"][2]["unit"], "GB/s");
  expect_keys(j["summary"], {"records", "measured", "skipped", "noise_missed", "avg_busbw_gbps", "wrong"});

  ASSERT_EQ(j["records"].size(), 1u);
  const ordered_json& r = j["records"][0];
  expect_keys(r, {"kind", "params", "status", "skip_reason", "ops_per_sample", "noise_target_met", "metrics", "phases",
                  "ranks"});
  // Parameters keep the layout's order.
  std::vector<std::string> keys;
  for (const auto& [k, v] : r["params"].items()) keys.push_back(k);
  EXPECT_EQ(ordered_json(keys), j["layout"]["params"]);
  EXPECT_EQ(r["params"]["bytes"], 1024);
  EXPECT_EQ(r["params"]["placement"], "out-of-place");
  expect_keys(r["metrics"], {"time_us", "algbw_gbps", "busbw_gbps", "wrong", "faults_per_op", "switches_per_op"});
  expect_close(r["metrics"]["time_us"].get<double>(), 12.5);
  expect_close(r["metrics"]["algbw_gbps"].get<double>(), 1024 / 12.5e-6 / 1e9);
  EXPECT_EQ(r["metrics"]["wrong"], 0);
  expect_close(r["metrics"]["faults_per_op"].get<double>(), 8193);  // the most over ranks
  ASSERT_EQ(r["phases"].size(), 1u);
  const ordered_json& time = r["phases"][0];
  expect_keys(time, {"name", "time_us", "rank_spread_us", "samples_us"});
  expect_keys(time["time_us"], {"median", "mean", "min", "max", "stddev", "p99", "mad", "noise_pct", "median_ci_low",
                                "median_ci_high", "median_ci_pct", "samples", "outliers", "iqm"});
  // Seconds in the model, microseconds in JSON.
  expect_close(time["time_us"]["median"].get<double>(), 12.1);
  expect_close(time["time_us"]["median_ci_low"].get<double>(), 11);
  expect_close(time["samples_us"][3].get<double>(), 12.34567890123);
  expect_keys(time["rank_spread_us"], {"min", "avg", "max", "rank0"});
  // Each rank's own figures, with its host.
  ASSERT_EQ(r["ranks"].size(), 2u);
  EXPECT_EQ(r["ranks"][1]["host"], "node-b");
  EXPECT_EQ(r["ranks"][1]["minor_faults_per_op"], 8192);
  expect_close(r["ranks"][1]["involuntary_switches_per_op"].get<double>(), 3);
  EXPECT_TRUE(r["skip_reason"].is_null());
}

TEST(JsonModel, UncheckedRecordHasNullWrong) {
  CaseResult r = sample_result("in-place", 8);
  r.wrong = -1;
  EXPECT_TRUE(record_json(records({r}).front())["metrics"]["wrong"].is_null());
}

// Version 1 reports (collective sweeps) read as the records version 2 writes.
TEST(JsonModel, ReadsVersion1Reports) {
  const char* root = std::getenv("DISTBENCH_SOURCE_ROOT");
  ASSERT_NE(root, nullptr) << "run under meson test";
  const std::string text = read_text(fs::path(root) / "tests" / "data" / "report_v1.json");
  const ordered_json v1 = ordered_json::parse(text);
  const ParsedReport parsed = parse_report(text);
  EXPECT_EQ(parsed.schema_version, 1);
  EXPECT_EQ(parsed.benchmark, "collective");
  EXPECT_EQ(parsed.title, v1["config"]["collective"]);
  EXPECT_EQ(parsed.info.backend, v1["config"]["backend"]);
  ASSERT_EQ(parsed.layout.metrics.size(), collective_record_layout().metrics.size());
  for (std::size_t i = 0; i < parsed.layout.metrics.size(); ++i) {
    EXPECT_EQ(parsed.layout.metrics[i].key, collective_record_layout().metrics[i].key);
    EXPECT_EQ(parsed.layout.metrics[i].unit, collective_record_layout().metrics[i].unit);
  }
  EXPECT_EQ(parsed.layout.params, collective_record_layout().params);
  ASSERT_EQ(parsed.records.size(), v1["results"].size());
  for (std::size_t i = 0; i < parsed.records.size(); ++i) {
    const Record& r = parsed.records[i];
    const ordered_json& old = v1["results"][i];
    EXPECT_EQ(r.kind, "collective");
    EXPECT_EQ(r.param_text("placement"), old["placement"]);
    EXPECT_EQ(r.param_text("bytes"), std::to_string(old["bytes"].get<std::int64_t>()));
    expect_close(r.metric("busbw_gbps"), old["busbw_gbps"].get<double>());
    expect_close(r.metric("time_us"), old["time_shown_us"].get<double>());
    ASSERT_NE(r.phase("time"), nullptr);
    EXPECT_EQ(r.phase("time")->samples.size(), old["samples_us"].size());
    expect_close(r.phase("time")->summary.median * 1e6, old["time_us"]["median"].get<double>());
    EXPECT_EQ(r.ranks.size(), old["os_per_op"]["minor_faults"].size());
  }
}

// The examples next to SCHEMA.md are reports of version 2, written by the tool before version 3: the reader still
// takes them.
TEST(JsonModel, ReadsTheExampleReports) {
  const char* root = std::getenv("DISTBENCH_SOURCE_ROOT");
  ASSERT_NE(root, nullptr) << "run under meson test";
  for (const auto& [file, benchmark] : {std::pair{"example.json", "collective"}, {"latency-example.json", "latency"}}) {
    const ParsedReport r = parse_report(read_text(fs::path(root) / "reports" / file));
    EXPECT_EQ(r.schema_version, 2) << file;
    EXPECT_FALSE(r.has_table()) << file;
    EXPECT_EQ(r.benchmark, benchmark);
    EXPECT_EQ(r.info.status, "complete");
    EXPECT_FALSE(r.records.empty());
    for (const Record& rec : r.records) {
      EXPECT_EQ(rec.kind, benchmark);
      EXPECT_EQ(rec.metric("wrong"), 0);
      ASSERT_EQ(rec.params.size(), r.layout.params.size());
      for (std::size_t i = 0; i < rec.params.size(); ++i) EXPECT_EQ(rec.params[i].key, r.layout.params[i]);
    }
  }
}

TEST(JsonModel, ParseRejectsMalformedReports) {
  const std::string good = sample_report({}).dump();
  auto usage_message = [](const std::string& text) -> std::string {
    try {
      parse_report(text);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      return e.what();
    }
    ADD_FAILURE() << "no error for: " << text;
    return "";
  };
  EXPECT_NE(usage_message("{\"schema_version\": 2,").find("not valid JSON"), std::string::npos);
  EXPECT_NE(usage_message("[1, 2]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(usage_message("{\"records\": []}").find("schema_version"), std::string::npos);

  ordered_json newer = ordered_json::parse(good);
  newer["schema_version"] = 5;
  const std::string message = usage_message(newer.dump());
  EXPECT_EQ(message,
            "unsupported report schema_version 5: this distbench reads versions 1 to 4; read it with the "
            "distbench version that wrote it, or a newer one");

  ordered_json missing = ordered_json::parse(good);
  missing.erase("config");
  EXPECT_NE(usage_message(missing.dump()).find("config"), std::string::npos);

  ordered_json mistyped = sample_report({sample_record("in-place", 8)});
  mistyped["records"][0]["params"]["bytes"] = ordered_json::array();
  EXPECT_EQ(usage_message(mistyped.dump()),
            "field 'records[0].params.bytes' must be a string, a number or null, found an array");

  ordered_json no_layout = ordered_json::parse(good);
  no_layout.erase("layout");
  EXPECT_NE(usage_message(no_layout.dump()).find("'layout'"), std::string::npos);

  ordered_json other_tool = ordered_json::parse(good);
  other_tool["tool"]["name"] = "nccl-tests";
  EXPECT_NE(usage_message(other_tool.dump()).find("tool.name"), std::string::npos);
}

// ---- the reporter and the files ----

class JsonReporterTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) / ("distbench_json_" + std::to_string(::getpid()) + "_" +
                                           testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static ParsedReport read_report(const fs::path& p) { return parse_report(read(p)); }

  std::vector<std::string> files_in_dir() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
    return names;
  }

  fs::path dir_;
};

TEST_F(JsonReporterTest, RewritesAfterEachAddAndCompletesAtEnd) {
  const fs::path path = dir_ / "run.json";
  RunInfo info = sample_info();
  test_support::PaceClock clock;
  JsonReporter reporter(path.string(), clock.now());

  reporter.begin(info, sample_description());
  ParsedReport report = read_report(path);
  EXPECT_EQ(report.info.status, "incomplete");
  EXPECT_TRUE(report.info.end_time.empty());
  EXPECT_TRUE(report.records.empty());

  clock.let_the_pace_pass();
  reporter.add(records({sample_result("out-of-place", 8), sample_result("in-place", 8)}));
  report = read_report(path);
  EXPECT_EQ(report.info.status, "incomplete");
  ASSERT_EQ(report.records.size(), 2u);
  EXPECT_EQ(report.records[1].param_text("placement"), "in-place");

  clock.let_the_pace_pass();
  reporter.add(records({sample_result("out-of-place", 1024), sample_result("in-place", 1024)}));
  report = read_report(path);
  EXPECT_EQ(report.info.status, "incomplete");
  ASSERT_EQ(report.records.size(), 4u);
  expect_same(report.records[2], records({sample_result("out-of-place", 1024)}).front());

  info.status = "complete";
  info.end_time = "2024-05-01T10:01:00Z";
  reporter.end(info);
  report = read_report(path);
  EXPECT_EQ(report.info.status, "complete");
  EXPECT_EQ(report.info.end_time, "2024-05-01T10:01:00Z");
  EXPECT_TRUE(report.info.error.empty());
  EXPECT_EQ(report.records.size(), 4u);

  EXPECT_EQ(files_in_dir(), std::vector<std::string>{"run.json"});  // no temporary file left behind
}

TEST_F(JsonReporterTest, StaysIncompleteUntilEndEvenIfBeginSaysOtherwise) {
  const fs::path path = dir_ / "run.json";
  RunInfo info = sample_info();
  info.status = "complete";
  JsonReporter reporter(path.string());
  reporter.begin(info, sample_description());
  EXPECT_EQ(read_report(path).info.status, "incomplete");
}

TEST_F(JsonReporterTest, FailedRunKeepsResultsAndTheFirstVerdict) {
  const fs::path path = dir_ / "run.json";
  RunInfo info = sample_info();
  JsonReporter reporter(path.string());
  reporter.begin(info, sample_description());
  reporter.add(records({sample_result("out-of-place", 8)}));

  RunInfo failed = info;
  failed.status = "failed";
  failed.error = "allreduce of 8 B timed out after 300 s; rank 1 never arrived";
  reporter.end(failed);
  RunInfo later = info;
  later.status = "complete";
  reporter.end(later);                                           // ignored: the first end() is final
  reporter.add(records({sample_result("out-of-place", 1024)}));  // ignored too

  const ParsedReport report = read_report(path);
  EXPECT_EQ(report.info.status, "failed");
  EXPECT_EQ(report.info.error, failed.error);
  EXPECT_EQ(report.records.size(), 1u);
}

TEST_F(JsonReporterTest, EndFromAnotherThreadWhileAdding) {
  const fs::path path = dir_ / "run.json";
  RunInfo info = sample_info();
  JsonReporter reporter(path.string());
  reporter.begin(info, sample_description());
  std::thread watchdog([&] {
    RunInfo failed = info;
    failed.status = "failed";
    failed.error = "watchdog";
    reporter.end(failed);
  });
  for (int i = 0; i < 50; ++i) reporter.add(records({sample_result("out-of-place", 8)}));
  watchdog.join();

  const ParsedReport report = read_report(path);
  EXPECT_EQ(report.info.status, "failed");
  EXPECT_LE(report.records.size(), 50u);
  EXPECT_EQ(files_in_dir(), std::vector<std::string>{"run.json"});
}

TEST_F(JsonReporterTest, AtomicWriteReplacesTheFileWithoutLeftovers) {
  const fs::path path = dir_ / "out.txt";
  write_file_atomically(path.string(), "first\n");
  write_file_atomically(path.string(), "second\n");
  EXPECT_EQ(read(path), "second\n");
  EXPECT_EQ(files_in_dir(), std::vector<std::string>{"out.txt"});
}

TEST_F(JsonReporterTest, AtomicWriteFailureNamesThePath) {
  const std::string path = (dir_ / "missing" / "out.json").string();
  try {
    write_file_atomically(path, "x");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::failure);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(files_in_dir().empty());
}

TEST_F(JsonReporterTest, CheckWritableAcceptsANewOrExistingFileAndTouchesNothing) {
  const fs::path fresh = dir_ / "new.json";
  EXPECT_NO_THROW(check_writable(fresh.string()));
  EXPECT_FALSE(fs::exists(fresh));

  const fs::path existing = dir_ / "old.json";
  write_file_atomically(existing.string(), "keep me");
  EXPECT_NO_THROW(check_writable(existing.string()));
  EXPECT_EQ(read(existing), "keep me");
  EXPECT_EQ(files_in_dir(), std::vector<std::string>{"old.json"});
}

TEST_F(JsonReporterTest, CheckWritableRejectsAMissingDirectory) {
  const std::string path = (dir_ / "no-such-dir" / "run.json").string();
  try {
    check_writable(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_EQ(std::string(e.what()), "cannot write report '" + path + "': directory '" +
                                         (dir_ / "no-such-dir").string() +
                                         "' does not exist; choose a path in an existing, writable directory");
  }
}

TEST_F(JsonReporterTest, CheckWritableRejectsADirectory) {
  try {
    check_writable(dir_.string());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_EQ(std::string(e.what()), "cannot write report '" + dir_.string() +
                                         "': it is a directory, not a file; choose a path in an existing, "
                                         "writable directory");
  }
}

TEST_F(JsonReporterTest, CheckWritableRejectsAnEmptyPath) { EXPECT_THROW(check_writable(""), Error); }

}  // namespace
}  // namespace distbench
