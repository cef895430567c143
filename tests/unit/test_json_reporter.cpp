// The JSON report: schema keys, round trip through parse_report_json, status transitions, incremental atomic
// rewrites, and the checks on the output path.
#include "core/error.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/json_model.hpp"
#include "core/report/json_reporter.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace distbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

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
  CaseResult r;
  r.collective = "allreduce";
  r.backend = "mpi";
  r.dtype = "float32";
  r.op = "sum";
  r.placement = std::move(placement);
  r.bytes = bytes;
  r.count = bytes / 4;
  r.nranks = 2;
  r.group = "world";
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

void expect_same(const CaseResult& a, const CaseResult& b) {
  EXPECT_EQ(a.collective, b.collective);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.placement, b.placement);
  EXPECT_EQ(a.root, b.root);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.nranks, b.nranks);
  EXPECT_EQ(a.group, b.group);
  EXPECT_EQ(a.groups, b.groups);
  EXPECT_EQ(a.ops_per_sample, b.ops_per_sample);
  EXPECT_EQ(a.time.samples, b.time.samples);
  EXPECT_EQ(a.time.outliers, b.time.outliers);
  for (auto [x, y] : {std::pair{a.time.median, b.time.median}, {a.time.mean, b.time.mean}, {a.time.min, b.time.min},
                      {a.time.max, b.time.max}, {a.time.stddev, b.time.stddev}, {a.time.p99, b.time.p99},
                      {a.time.mad, b.time.mad}, {a.time.noise, b.time.noise}, {a.time.median_low, b.time.median_low},
                      {a.time.median_high, b.time.median_high}, {a.time.median_ci, b.time.median_ci},
                      {a.rank_time.min, b.rank_time.min},
                      {a.rank_time.avg, b.rank_time.avg}, {a.rank_time.max, b.rank_time.max},
                      {a.rank_time.rank0, b.rank_time.rank0}, {a.time_shown, b.time_shown}, {a.algbw, b.algbw},
                      {a.busbw, b.busbw}}) {
    expect_close(x, y);
  }
  EXPECT_EQ(a.wrong, b.wrong);
  EXPECT_EQ(a.noise_target_met, b.noise_target_met);
  ASSERT_EQ(a.samples.size(), b.samples.size());
  for (std::size_t i = 0; i < a.samples.size(); ++i) expect_close(a.samples[i], b.samples[i]);
  ASSERT_EQ(a.os_per_op.size(), b.os_per_op.size());
  for (std::size_t i = 0; i < a.os_per_op.size(); ++i) {
    expect_close(a.os_per_op[i].minor_faults, b.os_per_op[i].minor_faults);
    expect_close(a.os_per_op[i].major_faults, b.os_per_op[i].major_faults);
    expect_close(a.os_per_op[i].voluntary_switches, b.os_per_op[i].voluntary_switches);
    expect_close(a.os_per_op[i].involuntary_switches, b.os_per_op[i].involuntary_switches);
  }
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.skip_reason, b.skip_reason);
}

void expect_same(const RunInfo& a, const RunInfo& b) {
  EXPECT_EQ(a.tool_version, b.tool_version);
  EXPECT_EQ(a.git_sha, b.git_sha);
  EXPECT_EQ(a.argv, b.argv);
  EXPECT_EQ(a.start_time, b.start_time);
  EXPECT_EQ(a.end_time, b.end_time);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.world_size, b.world_size);
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (std::size_t i = 0; i < a.ranks.size(); ++i) {
    EXPECT_EQ(a.ranks[i].rank, b.ranks[i].rank);
    EXPECT_EQ(a.ranks[i].host, b.ranks[i].host);
    EXPECT_EQ(a.ranks[i].local_rank, b.ranks[i].local_rank);
  }
  EXPECT_EQ(a.versions, b.versions);
  EXPECT_EQ(a.environment, b.environment);
}

void expect_keys(const json& j, std::initializer_list<const char*> keys) {
  ASSERT_TRUE(j.is_object()) << j.dump();
  for (const char* k : keys) EXPECT_TRUE(j.contains(k)) << "missing key '" << k << "' in " << j.dump();
  EXPECT_EQ(j.size(), keys.size()) << j.dump();
}

// ---- the model ----

TEST(JsonModel, RoundTripKeepsEveryField) {
  RunInfo info = sample_info();
  info.end_time = "2024-05-01T10:05:00Z";
  info.status = "failed";
  info.error = "rank 1 on node-b: connection reset";
  CaseResult unchecked = sample_result("in-place", 1048576);
  unchecked.wrong = -1;
  unchecked.time.noise = std::nan("");  // no JSON number: written as null, read back as NaN
  CaseResult skipped = sample_result("out-of-place", 8);
  skipped.status = "skipped";
  skipped.skip_reason = "needs 4 ranks";
  skipped.samples.clear();
  const std::vector<CaseResult> results = {sample_result("out-of-place", 1024), unchecked, skipped};

  const ParsedReport parsed = parse_report_json(make_report_json(info, sample_plan(), results).dump(2));
  EXPECT_EQ(parsed.schema_version, kReportSchemaVersion);
  expect_same(parsed.info, info);
  ASSERT_EQ(parsed.results.size(), results.size());
  for (std::size_t i = 0; i < results.size(); ++i) expect_same(parsed.results[i], results[i]);
  EXPECT_EQ(parsed.config, json(sample_plan()));
}

TEST(JsonModel, SchemaKeysAndUnits) {
  const json j = make_report_json(sample_info(), sample_plan(), {sample_result("out-of-place", 1024)});
  expect_keys(j, {"schema_version", "tool", "argv", "start_time", "end_time", "status", "error", "environment",
                  "config", "results"});
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["tool"], json({{"name", "distbench"}, {"version", "0.1.0"}, {"git_sha", "0123456789ab"}}));
  EXPECT_TRUE(j["end_time"].is_null());
  EXPECT_TRUE(j["error"].is_null());
  EXPECT_EQ(j["status"], "incomplete");
  expect_keys(j["environment"], {"world_size", "ranks", "versions", "variables"});
  EXPECT_EQ(j["environment"]["ranks"][1], json({{"rank", 1}, {"host", "node-b"}, {"local_rank", 0}}));
  EXPECT_EQ(j["environment"]["variables"]["NCCL_DEBUG"], "WARN");

  const json& config = j["config"];
  expect_keys(config, {"collective", "backend", "sizes", "dtypes", "ops", "placements", "root", "group_size",
                       "warmup_iters", "stopping", "check", "average", "timeout_s", "malloc_reuse",
                       "backend_options"});
  EXPECT_EQ(config["collective"], "allreduce");
  EXPECT_EQ(config["dtypes"], json({"float32", "bfloat16"}));
  EXPECT_EQ(config["ops"], json({"sum", "max"}));
  EXPECT_EQ(config["placements"], json({"out-of-place", "in-place"}));
  EXPECT_EQ(config["sizes"], json({8, 1024, 1048576}));
  EXPECT_EQ(config["average"], "max");
  expect_keys(config["stopping"], {"samples", "max_noise", "min_samples", "max_time_s"});
  EXPECT_EQ(config["stopping"]["max_noise"], 1.5);
  expect_keys(config["backend_options"],
              {"gpus_per_process", "device_index", "agg_iters", "graph_launches", "blocking", "register_buffers"});
  EXPECT_EQ(config["backend_options"]["agg_iters"], 4);

  ASSERT_EQ(j["results"].size(), 1u);
  const json& r = j["results"][0];
  expect_keys(r, {"collective", "backend", "dtype", "op", "placement", "root", "bytes", "count", "nranks", "group",
                  "groups", "ops_per_sample", "time_us", "rank_time_us", "time_shown_us", "algbw_gbps",
                  "busbw_gbps", "wrong", "noise_target_met", "samples_us", "os_per_op", "status", "skip_reason"});
  expect_keys(r["time_us"], {"median", "mean", "min", "max", "stddev", "p99", "mad", "noise_pct", "median_ci_low",
                             "median_ci_high", "median_ci_pct", "samples", "outliers"});
  expect_close(r["time_us"]["median_ci_low"].get<double>(), 11);
  expect_close(r["time_us"]["median_ci_pct"].get<double>(), 8.26);
  // Page faults and context switches per operation, one entry per rank.
  expect_keys(r["os_per_op"], {"minor_faults", "major_faults", "voluntary_switches", "involuntary_switches"});
  EXPECT_EQ(r["os_per_op"]["minor_faults"], json({0.5, 8192.0}));
  EXPECT_EQ(r["os_per_op"]["involuntary_switches"], json({0.125, 3.0}));
  expect_keys(r["rank_time_us"], {"min", "avg", "max", "rank0"});
  // Seconds in the model, microseconds in JSON.
  expect_close(r["time_us"]["median"].get<double>(), 12.1);
  expect_close(r["time_shown_us"].get<double>(), 12.5);
  expect_close(r["samples_us"][3].get<double>(), 12.34567890123);
  expect_close(r["time_us"]["noise_pct"].get<double>(), 6.78);
  expect_close(r["algbw_gbps"].get<double>(), 1024 / 12.5e-6 / 1e9);
  EXPECT_EQ(r["wrong"], 0);
  EXPECT_TRUE(r["skip_reason"].is_null());
}

TEST(JsonModel, UncheckedResultHasNullWrong) {
  CaseResult r = sample_result("in-place", 8);
  r.wrong = -1;
  EXPECT_TRUE(json(r)["wrong"].is_null());
}

TEST(JsonModel, ParseRejectsMalformedReports) {
  const std::string good = make_report_json(sample_info(), sample_plan(), {}).dump();
  auto usage_message = [](const std::string& text) -> std::string {
    try {
      parse_report_json(text);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      return e.what();
    }
    ADD_FAILURE() << "no error for: " << text;
    return "";
  };
  EXPECT_NE(usage_message("{\"schema_version\": 1,").find("not valid JSON"), std::string::npos);
  EXPECT_NE(usage_message("[1, 2]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(usage_message("{\"results\": []}").find("schema_version"), std::string::npos);

  json newer = json::parse(good);
  newer["schema_version"] = 2;
  EXPECT_NE(usage_message(newer.dump()).find("unsupported report schema_version 2"), std::string::npos);

  json missing = json::parse(good);
  missing.erase("config");
  EXPECT_NE(usage_message(missing.dump()).find("config"), std::string::npos);

  json mistyped = make_report_json(sample_info(), sample_plan(), {sample_result("in-place", 8)});
  mistyped["results"][0]["bytes"] = "eight";
  EXPECT_NE(usage_message(mistyped.dump()).find("malformed distbench report: results[0]: "), std::string::npos);

  json other_tool = json::parse(good);
  other_tool["tool"]["name"] = "nccl-tests";
  EXPECT_NE(usage_message(other_tool.dump()).find("tool.name"), std::string::npos);
}

// ---- the reporter and the files ----

class JsonReporterTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) /
           ("distbench_json_" + std::to_string(::getpid()) + "_" +
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
  static ParsedReport read_report(const fs::path& p) { return parse_report_json(read(p)); }

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
  JsonReporter reporter(path.string());

  reporter.begin(info, sample_plan());
  ParsedReport report = read_report(path);
  EXPECT_EQ(report.info.status, "incomplete");
  EXPECT_TRUE(report.info.end_time.empty());
  EXPECT_TRUE(report.results.empty());

  reporter.add({sample_result("out-of-place", 8), sample_result("in-place", 8)});
  report = read_report(path);
  EXPECT_EQ(report.info.status, "incomplete");
  ASSERT_EQ(report.results.size(), 2u);
  EXPECT_EQ(report.results[1].placement, "in-place");

  reporter.add({sample_result("out-of-place", 1024), sample_result("in-place", 1024)});
  report = read_report(path);
  EXPECT_EQ(report.info.status, "incomplete");
  ASSERT_EQ(report.results.size(), 4u);
  expect_same(report.results[2], sample_result("out-of-place", 1024));

  info.status = "complete";
  info.end_time = "2024-05-01T10:01:00Z";
  reporter.end(info);
  report = read_report(path);
  EXPECT_EQ(report.info.status, "complete");
  EXPECT_EQ(report.info.end_time, "2024-05-01T10:01:00Z");
  EXPECT_TRUE(report.info.error.empty());
  EXPECT_EQ(report.results.size(), 4u);

  EXPECT_EQ(files_in_dir(), std::vector<std::string>{"run.json"});  // no temporary file left behind
}

TEST_F(JsonReporterTest, StaysIncompleteUntilEndEvenIfBeginSaysOtherwise) {
  const fs::path path = dir_ / "run.json";
  RunInfo info = sample_info();
  info.status = "complete";
  JsonReporter reporter(path.string());
  reporter.begin(info, sample_plan());
  EXPECT_EQ(read_report(path).info.status, "incomplete");
}

TEST_F(JsonReporterTest, FailedRunKeepsResultsAndTheFirstVerdict) {
  const fs::path path = dir_ / "run.json";
  RunInfo info = sample_info();
  JsonReporter reporter(path.string());
  reporter.begin(info, sample_plan());
  reporter.add({sample_result("out-of-place", 8)});

  RunInfo failed = info;
  failed.status = "failed";
  failed.error = "allreduce of 8 B timed out after 300 s; rank 1 never arrived";
  reporter.end(failed);
  RunInfo later = info;
  later.status = "complete";
  reporter.end(later);                                 // ignored: the first end() is final
  reporter.add({sample_result("out-of-place", 1024)});  // ignored too

  const ParsedReport report = read_report(path);
  EXPECT_EQ(report.info.status, "failed");
  EXPECT_EQ(report.info.error, failed.error);
  EXPECT_EQ(report.results.size(), 1u);
}

TEST_F(JsonReporterTest, EndFromAnotherThreadWhileAdding) {
  const fs::path path = dir_ / "run.json";
  RunInfo info = sample_info();
  JsonReporter reporter(path.string());
  reporter.begin(info, sample_plan());
  std::thread watchdog([&] {
    RunInfo failed = info;
    failed.status = "failed";
    failed.error = "watchdog";
    reporter.end(failed);
  });
  for (int i = 0; i < 50; ++i) reporter.add({sample_result("out-of-place", 8)});
  watchdog.join();

  const ParsedReport report = read_report(path);
  EXPECT_EQ(report.info.status, "failed");
  EXPECT_LE(report.results.size(), 50u);
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

TEST_F(JsonReporterTest, CheckWritableRejectsAnEmptyPath) {
  EXPECT_THROW(check_writable(""), Error);
}

}  // namespace
}  // namespace distbench
