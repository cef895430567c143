// Reading files into runs of the history: a distbench report (the example report of reports/), nccl-tests' text output
// and its -J JSON (fixtures written here from the format's facts), and the files refused.
#include "core/error.hpp"
#include "core/report/json_model.hpp"
#include "core/sys/text_file.hpp"
#include "history/ingest.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

namespace distbench::history {
namespace {

std::string example_report() {
  const char* root = std::getenv("DISTBENCH_SOURCE_ROOT");
  EXPECT_NE(root, nullptr) << "run through meson test (DISTBENCH_SOURCE_ROOT names the sources)";
  return read_text_file(std::string(root ? root : ".") + "/reports/example.json", "report", kIngestMaxBytes);
}

SourceFile source(std::string text, std::string path = "run.log") {
  return {std::move(path), std::move(text), "2026-11-29T10:00:00Z"};
}

// The usage_error's message that reading `file` throws ("" when it reads).
std::string ingest_refusal(const SourceFile& file, const IngestOptions& options = {}) {
  try {
    read_run(file, options);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage) << e.what();
    return e.what();
  }
  return "";
}

const CaseFigures* find_case(const RunToStore& run, const std::string& label) {
  for (const CaseFigures& c : run.cases) {
    if (c.label == label) return &c;
  }
  return nullptr;
}

TEST(IngestDistbench, EachMeasuredRecordIsACaseAtItsMedian) {
  const std::string text = example_report();
  const ParsedReport report = parse_report(text);
  const RunToStore run = read_run(source(text, "dir/example.json"), {});
  EXPECT_EQ(run.meta.source_format, "distbench");
  EXPECT_EQ(run.meta.label, "example.json");
  EXPECT_EQ(run.meta.machine, "AMD EPYC / cpu (host memory)");
  EXPECT_EQ(run.meta.world, 2);
  EXPECT_EQ(run.meta.time, report.info.start_time);
  EXPECT_EQ(run.meta.content_hash.size(), 64u);
  ASSERT_EQ(run.cases.size(), report.records.size());
  const CaseFigures& first = run.cases.front();
  EXPECT_EQ(first.label, "allreduce 8 B out-of-place");
  EXPECT_EQ(first.group, "AMD EPYC / cpu (host memory) | collective | mpi | np 2 | -");
  EXPECT_NE(first.key.find(first.group), std::string::npos);
  const Summary& s = report.records.front().phases.front().summary;
  EXPECT_DOUBLE_EQ(first.point.time_us, s.median * 1e6);
  EXPECT_DOUBLE_EQ(first.point.time_low_us, s.median_low * 1e6);
  EXPECT_EQ(first.point.samples, s.samples);
  EXPECT_EQ(first.point.wrong, 0);
  // the bandwidths at the median time: bytes over time, times the record's bus factor
  EXPECT_NEAR(first.point.algbw_gbps, 8 / (first.point.time_us * 1e-6) / 1e9, 1e-12);
}

TEST(IngestDistbench, MachineGivenNamesTheGroup) {
  IngestOptions o;
  o.machine = "ci-runner-kind";
  o.label = "nightly";
  const RunToStore run = read_run(source(example_report()), o);
  EXPECT_EQ(run.meta.label, "nightly");
  EXPECT_EQ(run.cases.front().group.rfind("ci-runner-kind | ", 0), 0u);
}

TEST(IngestDistbench, RunThatDidNotCompleteIsRefused) {
  ordered_json j = ordered_json::parse(example_report());
  j["status"] = "interrupted";
  const std::string why = ingest_refusal(source(j.dump(), "r.json"));
  EXPECT_NE(why.find("did not complete"), std::string::npos) << why;
}

// A log of nccl-tests' shape: the settings line, one line per rank, the header, rows, the footer. Values made up.
constexpr const char* kTextLog = R"(# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0
#
# Using devices
#  Rank  0 Group  0 Pid   4242 on     nodeA device  0 [0000:1a:00] Example GPU X1
#  Rank  1 Group  0 Pid   4243 on     nodeB device  0 [0000:1a:00] Example GPU X1
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)
host1:1:1 [0] NCCL INFO a line of NCCL's own, passed over
        1024           256     float     sum      -1    10.00    0.10    0.10       0    11.00    0.09    0.09       0
        2048           512     float     sum      -1    20.00    0.10    0.10       2    21.00    0.10    0.10     N/A
# Out of bounds values : 2 FAILED
# Avg bus bandwidth    : 0.1
#
# Collective test concluded: all_reduce_perf
)";

TEST(IngestNcclTestsText, EachRowIsTwoCases) {
  const RunToStore run = read_run(source(kTextLog), {});
  EXPECT_EQ(run.meta.source_format, "nccl-tests");
  EXPECT_EQ(run.meta.machine, "Example GPU X1");
  EXPECT_EQ(run.meta.world, 2);
  EXPECT_EQ(run.meta.time, "2026-11-29T10:00:00Z");  // no timestamps in the rows: when the file was written
  ASSERT_EQ(run.cases.size(), 4u);
  const CaseFigures* c = find_case(run, "allreduce 2 KiB float32 sum in-place");
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(c->point.time_us, 21);
  EXPECT_EQ(c->point.samples, 0u);  // nccl-tests' mean over a block: no samples, no interval
  EXPECT_TRUE(std::isnan(c->point.time_low_us));
  EXPECT_TRUE(std::isnan(c->point.wrong));  // N/A: not checked
  c = find_case(run, "allreduce 2 KiB float32 sum out-of-place");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->point.wrong, 2);
  EXPECT_NEAR(c->point.algbw_gbps, 2048 / 20e-6 / 1e9, 1e-9);
  EXPECT_EQ(c->group, "Example GPU X1 | nccl-tests | nccl | np 2 | nccl-tests");
}

TEST(IngestNcclTestsText, CyclesAreOneCaseAtTheirMedianAndTimestampsDateTheRun) {
  std::string log = "# Collective test starting: ./build/reduce_scatter_perf\n";
  for (double t : {30.0, 10.0, 20.0}) {
    log += fmt::format("  4096  1024  float  sum  -1  {:.2f}  0.4  0.3  0  {:.2f}  0.4  0.3  0  2026-11-28 09:15:0{}\n",
                       t, t + 1, static_cast<int>(t / 10));
  }
  const RunToStore run = read_run(source(log), {});
  ASSERT_EQ(run.cases.size(), 2u);
  EXPECT_EQ(run.cases[0].label, "reduce-scatter 4 KiB float32 sum out-of-place");
  EXPECT_DOUBLE_EQ(run.cases[0].point.time_us, 20);
  EXPECT_EQ(run.meta.time, "2026-11-28T09:15:03");
  EXPECT_EQ(run.meta.machine, "unknown machine");
}

TEST(IngestNcclTestsText, CollectiveFromTheLogOrTheOption) {
  const std::string rows = "  1024  256  float  sum  -1  10.0  0.1  0.1  0  11.0  0.1  0.1  0\n";
  EXPECT_NE(ingest_refusal(source(rows)).find("--collective NAME"), std::string::npos);
  IngestOptions o;
  o.collective = "all_gather";
  const RunToStore run = read_run(source(rows), o);
  EXPECT_EQ(run.cases[0].params.front().key, "collective");
  EXPECT_EQ(std::get<std::string>(run.cases[0].params.front().value), "allgather");
}

TEST(IngestNcclTestsText, BadRowsAndLongLinesAreRefused) {
  const std::string head = "# Collective test starting: all_reduce_perf\n";
  EXPECT_NE(
      ingest_refusal(source(head + "  1024  256  float  sum  -1  10.0  x  0.1  0  11.0  0.1  0.1  0\n")).find("line 2"),
      std::string::npos);
  EXPECT_NE(ingest_refusal(source(head + "# " + std::string(kIngestMaxLineBytes, 'x') + "\n")).find("longer than"),
            std::string::npos);
  EXPECT_NE(ingest_refusal(source(head)).find("no measured case"), std::string::npos);
}

// nccl-tests' -J output, version 3, written from its writer's keys; values made up.
ordered_json nccl_json() {
  ordered_json per_iter = {{"skipped_iterations", 1}, {"min_us", 9.0},
                           {"max_us", 14.0},          {"avg_us", 11.0},
                           {"p50_us", 10.5},          {"p95_us", 14.0},
                           {"p99_us", 14.0},          {"stdev_us", 1.0},
                           {"cv_pct", 9.0},           {"times_us", {99.0, 10.0, 10.5, 11.0, 9.0, 14.0, 10.6, 10.4}}};
  ordered_json row = {{"size", 1048576},
                      {"count", 262144},
                      {"type", "float"},
                      {"redop", "sum"},
                      {"root", "    -1"},
                      {"out_of_place", {{"time", 11.0}, {"alg_bw", 95.3}, {"bus_bw", 95.3}, {"nwrong", 0.0}}},
                      {"out_of_place_per_iter", per_iter},
                      {"in_place", {{"time", 12.0}, {"alg_bw", 87.4}, {"bus_bw", 87.4}, {"nwrong", nullptr}}},
                      {"actual_iterations", 8},
                      {"experiment_name", ""}};
  ordered_json devices = {{{"rank", 0},
                           {"group", 0},
                           {"pid", 1},
                           {"hostname", "n1"},
                           {"device", 0},
                           {"device_hex", "0000:1a:00"},
                           {"device_info", "Example GPU X1"}}};
  return {{"version", 3},
          {"start_time", "2026-11-27 08:00:00"},
          {"args", {"/opt/nccl-tests/all_reduce_perf", "-b", "1M", "-J", "out.json"}},
          {"env", {"SECRET=do-not-keep"}},
          {"nccl_version", 22809},
          {"config", {{"nthreads", 1}, {"ngpus", 1}, {"iterations", 8}, {"devices", devices}}},
          {"results", {row}}};
}

TEST(IngestNcclTestsJson, PerIterationMedianAndItsInterval) {
  const RunToStore run = read_run(source(nccl_json().dump(), "out.json"), {});
  EXPECT_EQ(run.meta.source_format, "nccl-tests-json");
  EXPECT_EQ(run.meta.time, "2026-11-27T08:00:00");
  EXPECT_EQ(run.meta.machine, "Example GPU X1");
  EXPECT_EQ(run.meta.world, 1);
  EXPECT_EQ(run.meta.config.find("SECRET"), std::string::npos);  // the environment is not kept
  ASSERT_EQ(run.cases.size(), 2u);
  const CaseFigures* c = find_case(run, "allreduce 1 MiB float32 sum out-of-place");
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(c->point.time_us, 10.5);   // p50_us, not the mean
  EXPECT_EQ(c->point.samples, 7u);            // the skipped first iteration left out
  EXPECT_DOUBLE_EQ(c->point.time_low_us, 9);  // 7 times: the median's 95% interval is [min, max]
  EXPECT_DOUBLE_EQ(c->point.time_high_us, 14);
  EXPECT_DOUBLE_EQ(c->point.wrong, 0);
  c = find_case(run, "allreduce 1 MiB float32 sum in-place");
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(c->point.time_us, 12);
  EXPECT_TRUE(std::isnan(c->point.wrong));
}

TEST(IngestNcclTestsJson, MalformedIsRefusedInOneLine) {
  ordered_json j = nccl_json();
  j["results"][0]["out_of_place"]["alg_bw"] = "fast";
  const std::string why = ingest_refusal(source(j.dump(), "out.json"));
  EXPECT_NE(why.find("not nccl-tests' JSON output"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);
  EXPECT_NE(ingest_refusal(source("{\"args\": [", "out.json")).find("out.json"), std::string::npos);
  j = nccl_json();
  j["results"][0]["out_of_place"]["time"] = "nan";  // how nccl-tests writes a NaN: that placement is left out
  EXPECT_EQ(read_run(source(j.dump(), "out.json"), {}).cases.size(), 1u);
}

}  // namespace
}  // namespace distbench::history
