// nccl-tests' JSON made from collective records: nccl-tests' per-iteration statistics (nearest-rank percentiles,
// the population's stdev) and the document's keys, types and values as nccl-tests 2.19 writes them.
#include "core/report/nccl_tests_json.hpp"
#include "core/report/nccl_tests_json_reporter.hpp"
#include "core/report/report_output.hpp"

#include "tests/support/collective_records.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace distbench {
namespace {

using collective::CaseResult;
using collective::SweepPlan;
using test_support::allreduce_case;
using test_support::describe;
using test_support::records;

TEST(NcclTestsJson, IterationStatisticsAreNcclTests) {
  const std::vector<double> times = {5, 1, 4, 2, 3, 100};
  const IterationStats s = iteration_stats(times, 1);  // over 1 4 2 3 100
  EXPECT_EQ(s.skipped, 1u);
  EXPECT_EQ(s.min_us, 1);
  EXPECT_EQ(s.max_us, 100);
  EXPECT_EQ(s.p50_us, 3);  // the middle one
  EXPECT_EQ(s.p95_us, 100);
  EXPECT_EQ(s.avg_us, 22);
  EXPECT_NEAR(s.stdev_us, std::sqrt(7610.0 / 5), 1e-9);  // over n, not n - 1
  EXPECT_NEAR(s.cv_pct, s.stdev_us / 22 * 100, 1e-9);

  std::vector<double> twenty;
  for (int i = 20; i >= 1; --i) twenty.push_back(i);
  const IterationStats t = iteration_stats(twenty, 0);
  EXPECT_EQ(t.p50_us, 11);  // the upper of the middle pair
  EXPECT_EQ(t.p95_us, 19);  // nearest rank: the 19th of 20
  EXPECT_EQ(t.p99_us, 20);
  EXPECT_EQ(iteration_stats(times, 10).skipped, 5u);  // one time is always left
  EXPECT_EQ(iteration_stats({}, 0).max_us, 0);
}

CaseResult measured(const std::string& placement, std::uint64_t bytes) {
  CaseResult r = allreduce_case(placement, bytes, 2);
  r.samples = {3e-6, 1e-6, 2e-6};
  r.time.samples = 3;
  r.time_shown = 2e-6;
  r.algbw = static_cast<double>(bytes) / 2e-6 / 1e9;
  r.busbw = r.algbw;
  r.wrong = 0;
  return r;
}

nlohmann::json document(SweepPlan plan, const std::vector<Record>& recs, std::vector<std::size_t> rows) {
  RunInfo info;
  info.backend = plan.backend;
  info.argv = {"distbench", "allreduce", "-J", "x.json"};
  info.start_time = "2026-11-30T03:22:00.5Z";
  info.environment = {{"OMPI_COMM_WORLD_SIZE", "2"}};
  info.ranks = {{0, "a", 0}, {1, "b", 0}};
  info.versions = {{"nccl.library", "2.28.9"}, {"device", "cuda: GPU 0 (NVIDIA H200)"}};
  plan.sizes = {8, 16};
  NcclTestsJsonReporter reporter{std::string(kInMemoryReport)};
  reporter.begin(info, describe(plan, info));
  std::size_t at = 0;
  for (std::size_t n : rows) {
    reporter.add(std::vector<Record>(recs.begin() + static_cast<std::ptrdiff_t>(at),
                                     recs.begin() + static_cast<std::ptrdiff_t>(at + n)));
    at += n;
  }
  info.status = "complete";
  info.end_time = "2026-11-30T03:23:00Z";
  reporter.end(info);
  return nlohmann::json::parse(reporter.contents());
}

TEST(NcclTestsJson, TheDocumentHasNcclTestsKeysAndTypes) {
  SweepPlan plan;
  plan.backend = "nccl";
  plan.per_iter_timing = true;
  plan.per_iter_skip = 1;
  const auto d =
      document(plan, records({measured("out-of-place", 8), measured("in-place", 8), measured("in-place", 16)}), {2, 1});
  EXPECT_EQ(d["version"], 3);
  EXPECT_EQ(d["start_time"], "2026-11-30 03:22:00");
  EXPECT_EQ(d["end_time"], "2026-11-30 03:23:00");
  EXPECT_EQ(d["args"][2], "-J");
  EXPECT_EQ(d["env"], nlohmann::json::array({"OMPI_COMM_WORLD_SIZE=2"}));
  EXPECT_EQ(d["nccl_version"], 22809);
  const auto& config = d["config"];
  EXPECT_EQ(config["minimum_bytes"], 8);
  EXPECT_EQ(config["maximum_bytes"], 16);
  EXPECT_EQ(config["step_factor"], 2);
  EXPECT_EQ(config["per_iter_timing"], "true");  // nccl-tests' booleans are strings
  EXPECT_EQ(config["per_iter_skip"], 1);
  ASSERT_EQ(config["devices"].size(), 2u);
  EXPECT_EQ(config["devices"][1]["hostname"], "b");
  EXPECT_EQ(config["devices"][1]["device"], 0);
  EXPECT_EQ(config["devices"][1]["device_info"], "NVIDIA H200");
  const auto& results = d["results"];
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["size"], 8);
  EXPECT_EQ(results[0]["count"], 2);
  EXPECT_EQ(results[0]["type"], "float");
  EXPECT_EQ(results[0]["redop"], "sum");
  EXPECT_EQ(results[0]["root"], "    -1");
  EXPECT_DOUBLE_EQ(results[0]["out_of_place"]["time"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(results[0]["in_place"]["alg_bw"].get<double>(), 0.004);
  EXPECT_EQ(results[0]["in_place"]["nwrong"], 0.0);
  const auto& per_iter = results[0]["out_of_place_per_iter"];
  EXPECT_EQ(per_iter["skipped_iterations"], 1);
  EXPECT_EQ(per_iter["times_us"], nlohmann::json::array({3.0, 1.0, 2.0}));
  EXPECT_DOUBLE_EQ(per_iter["p50_us"].get<double>(), 2.0);  // of 1 and 2: the upper
  EXPECT_FALSE(results[1].contains("out_of_place"));        // only the placements that ran
  EXPECT_TRUE(results[1].contains("in_place_per_iter"));
  EXPECT_EQ(results[1]["actual_iterations"], 3);
  EXPECT_EQ(d["out_of_bounds"]["okay"], "true");
  EXPECT_EQ(d["average_bus_bandwidth"]["okay"], "unchecked");
  EXPECT_EQ(d["errors"], nlohmann::json::array());
  EXPECT_EQ(d["distbench"]["status"], "complete");
}

TEST(NcclTestsJson, PlainRunsHaveNoPerIterationStatisticsAndNoNcclVersion) {
  SweepPlan plan;
  plan.backend = "mpi";
  plan.cpu_time = true;
  CaseResult unchecked = measured("out-of-place", 8);
  unchecked.wrong = -1;
  const auto d = document(plan, records({unchecked}), {1});
  EXPECT_EQ(d["nccl_version"], 0);
  EXPECT_EQ(d["config"]["per_iter_timing"], "false");
  const auto& r = d["results"][0];
  EXPECT_FALSE(r.contains("out_of_place_per_iter"));
  EXPECT_TRUE(r["out_of_place"]["nwrong"].is_null());
  EXPECT_TRUE(r["out_of_place"].contains("cpu_time"));  // -C: the time's key
  EXPECT_FALSE(r["out_of_place"].contains("time"));
}

}  // namespace
}  // namespace distbench
