// A report file rewritten while the run goes on (core/report/report_output): at once the first time, then no more
// often than its own cost allows; the end always writes. The pacing clock is one the test drives, so that a slow
// disk on a loaded machine cannot change what is checked.
#include "core/report/report_output.hpp"
#include "tests/support/report_pace.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace distbench {
namespace {

using namespace std::chrono_literals;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ReportOutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("report_output_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(ReportOutputTest, RewritesCostAtMostAFractionOfTheRun) {
  test_support::PaceClock clock;
  ReportOutput out(path("r.json"), clock.now());
  int made = 0;
  for (int row = 0; row < 200; ++row) {
    out.update([&] {
      ++made;
      clock.advance(2ms);  // a large report's cost
      return "row " + std::to_string(row);
    });
    if (row == 0) {
      EXPECT_EQ(read(path("r.json")), "row 0") << "the first update writes at once";
    }
    clock.advance(1ms);  // a row's measurement
  }
  // 200 rows of 1 ms, and each rewrite (2 ms) waits 20 times its cost: one at the start, then one per 40 ms.
  const double run_ms = std::chrono::duration<double, std::milli>(clock.now()().time_since_epoch()).count();
  EXPECT_LE(made, static_cast<int>(run_ms / 40.0) + 2) << "over " << run_ms << " ms";
  EXPECT_GE(made, 3) << "a paced report is still rewritten while the run goes on";
  EXPECT_LT(made, 50) << "without pacing every one of the 200 updates would rewrite";
  out.finish("the end", "complete");
  EXPECT_EQ(read(path("r.json")), "the end");
}

TEST_F(ReportOutputTest, ACheapReportIsRewrittenAfterEveryRowThatTakesLonger) {
  test_support::PaceClock clock;
  ReportOutput out(path("r.csv"), clock.now());
  int made = 0;
  for (int row = 0; row < 5; ++row) {
    out.update([&] {
      ++made;
      clock.advance(1ms);
      return "row " + std::to_string(row);
    });
    clock.advance(20ms);  // a row's measurement: 20 times the rewrite's cost
  }
  EXPECT_EQ(made, 5);
  EXPECT_EQ(read(path("r.csv")), "row 4");
}

TEST_F(ReportOutputTest, ARowShorterThanThePaceWaitsForTheNextOne) {
  test_support::PaceClock clock;
  ReportOutput out(path("r.csv"), clock.now());
  int made = 0;
  for (int row = 0; row < 4; ++row) {
    out.update([&] {
      ++made;
      clock.advance(1ms);
      return "row " + std::to_string(row);
    });
    clock.advance(12ms);  // 12 ms after a 1 ms rewrite: not yet; 25 ms after: due
  }
  EXPECT_EQ(made, 2) << "rows 0 and 2";
  EXPECT_EQ(read(path("r.csv")), "row 2");
}

TEST_F(ReportOutputTest, StandardOutputIsWrittenOnlyAtTheEnd) {
  ReportOutput out("-");
  bool made = false;
  out.update([&] {
    made = true;
    return std::string("x");
  });
  EXPECT_FALSE(made);
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

}  // namespace
}  // namespace distbench
