// Golden output of the Markdown report: the whole file after begin, after a row, and at the end.
#include "core/report/markdown_reporter.hpp"
#include "tests/support/report_pace.hpp"

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
using test_support::describe;
using test_support::records;

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CaseResult measured(std::string placement, double time_us, std::int64_t wrong) {
  CaseResult r = test_support::allreduce_case(std::move(placement), 1048576, 4);
  r.time_shown = time_us * 1e-6;
  r.algbw = 4.1901;
  r.busbw = 6.2852;
  r.wrong = wrong;
  r.os_per_op = {{2, 0, 0.5, 0}, {0, 0, 0, 1.25}};
  return r;
}

TEST(MarkdownReporter, HeaderRowsAndFooter) {
  const fs::path dir = fs::path(testing::TempDir()) / ("distbench_md_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path path = dir / "run.md";

  RunInfo info;
  info.tool_version = "0.1.0";
  info.git_sha = "abc";
  info.world_size = 4;
  info.ranks = {{0, "a", 0}, {1, "a", 1}, {2, "b", 0}, {3, "b", 1}};
  SweepPlan plan;
  plan.backend = "mpi";
  plan.sizes = {1048576};
  plan.stopping.max_time_s = 0;
  plan.show_faults = true;

  test_support::PaceClock clock;

  MarkdownReporter reporter(path.string(), clock.now());
  reporter.begin(info, describe(plan, info));
  const std::string header =
      "## distbench allreduce\n"
      "\n"
      "distbench 0.1.0 (git abc) · backend mpi · 4 ranks, per host: 2 (2 hosts) · world (1 group) · "
      "1048576 .. 1048576 B, 1 size · samples: 20 per case · time: interquartile mean of the samples (per sample: mean "
      "over ranks, -a avg)\n"
      "\n"
      "| size (B) | count | type | redop | root | out-of-place time (us) | out-of-place algbw (GB/s) | "
      "out-of-place busbw (GB/s) | out-of-place #wrong | out-of-place faults/op | out-of-place csw/op | "
      "in-place time (us) | in-place algbw (GB/s) | in-place busbw (GB/s) | in-place #wrong | in-place faults/op | "
      "in-place csw/op |\n"
      "| ---: | ---: | :--- | :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
      "---: | ---: |\n";
  EXPECT_EQ(read(path), header);

  CaseResult skipped = measured("in-place", 0, -1);
  skipped.status = "skipped";
  clock.let_the_pace_pass();
  reporter.add(records({measured("out-of-place", 250.25, 0), skipped}));
  const std::string rows = header +
                           "| 1048576 | 262144 | float | sum | -1 | 250.25 | 4.19 | 6.29 | 0 | 2.00 | 1.25 | "
                           "skipped |  |  |  |  |  |\n";
  EXPECT_EQ(read(path), rows);

  info.status = "failed";
  info.error = "allreduce 1 MiB: timed samples did not finish within 3 s";
  reporter.end(info);
  EXPECT_EQ(read(path), rows +
                            "\n**Wrong elements:** 0 OK · **Avg bus bandwidth:** 6.29 GB/s · **Status:** failed "
                            "(allreduce 1 MiB: timed samples did not finish within 3 s)\n");
  fs::remove_all(dir);
}

// The footer's emphasis is the reporter's; a run's error (a report's, when `report --format md` replays one) reads as
// the text it is, links and emphasis included.
TEST(MarkdownReporter, TheFooterKeepsItsOwnEmphasisAndNoOther) {
  const fs::path dir = fs::path(testing::TempDir()) / ("distbench_md_inert_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path path = dir / "run.md";
  RunInfo info;
  info.world_size = 1;
  info.ranks = {{0, "a", 0}};
  SweepPlan plan;
  plan.backend = "mpi";
  plan.sizes = {8};
  test_support::PaceClock clock;
  MarkdownReporter reporter(path.string(), clock.now());
  reporter.begin(info, describe(plan, info));
  info.status = "failed";
  info.error = "[see](javascript:alert(1)) **now** `x`";
  reporter.end(info);
  const std::string text = read(path);
  const std::string footer = "**Status:** failed (\\[see\\](javascript:alert(1)) \\*\\*now\\*\\* \\`x\\`)\n";
  EXPECT_NE(text.find(footer), std::string::npos) << text;
  EXPECT_NE(text.find("\n**Wrong elements:** "), std::string::npos) << text;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace distbench
