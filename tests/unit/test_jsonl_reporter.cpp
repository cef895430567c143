// The JSON Lines stream: a line for the run, one per record as each row comes (rewritten after the row), and the
// verdict at the end; every line one JSON object.
#include "core/report/jsonl_reporter.hpp"

#include "tests/support/collective_records.hpp"
#include "tests/support/report_pace.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace distbench {
namespace {

using collective::SweepPlan;

namespace fs = std::filesystem;

std::vector<nlohmann::json> json_lines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(JsonLinesReporter, TheRunThenARecordPerLineThenTheVerdict) {
  const fs::path dir = fs::path(testing::TempDir()) / ("distbench_jsonl_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path path = dir / "run.jsonl";
  RunInfo info;
  info.tool_version = "0.1.0";
  info.git_sha = "abc";
  info.backend = "mpi";
  info.world_size = 2;
  info.ranks = {{0, "a", 0}, {1, "a", 1}};
  SweepPlan plan;
  plan.backend = "mpi";
  plan.sizes = {8, 16};
  test_support::PaceClock clock;
  JsonLinesReporter reporter(path.string(), clock.now());

  reporter.begin(info, test_support::describe(plan, info));
  auto lines = json_lines(path);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["type"], "run");
  EXPECT_EQ(lines[0]["benchmark"], "collective");
  EXPECT_EQ(lines[0]["title"], "allreduce");
  EXPECT_EQ(lines[0]["layout"]["params"][0], "collective");

  for (std::uint64_t bytes : {8, 16}) {
    clock.let_the_pace_pass();
    reporter.add(test_support::records(
        {test_support::allreduce_case("out-of-place", bytes, 2), test_support::allreduce_case("in-place", bytes, 2)}));
  }
  lines = json_lines(path);
  ASSERT_EQ(lines.size(), 5u);
  for (std::size_t i = 1; i < 5; ++i) {
    EXPECT_EQ(lines[i]["type"], "record");
    EXPECT_EQ(lines[i]["row"], (i - 1) / 2);
    EXPECT_EQ(lines[i]["kind"], "collective");
    EXPECT_EQ(lines[i]["params"]["bytes"], i < 3 ? 8 : 16);
  }

  info.status = "complete";
  info.end_time = "2026-01-01T00:00:00Z";
  info.warnings = {{"noisy_median", "rerun", "the full figures"}, {"page_faults", "add --malloc-reuse"}};
  reporter.end(info);
  lines = json_lines(path);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[5]["type"], "end");
  EXPECT_EQ(lines[5]["status"], "complete");
  EXPECT_EQ(lines[5]["summary"]["records"], 4);
  EXPECT_EQ(lines[5]["warnings"][0]["code"], "noisy_median");
  EXPECT_EQ(lines[5]["warnings"][0]["detail"], "the full figures");
  EXPECT_FALSE(lines[5]["warnings"][1].contains("detail"));  // none: the message says it all
  fs::remove_all(dir);
}

}  // namespace
}  // namespace distbench
