// A report file rewritten while the run goes on (core/report/report_output): at once the first time, then no more
// often than its own cost allows; the end always writes.
#include "core/report/report_output.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace distbench {
namespace {

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
  ReportOutput out(path("r.json"));
  int made = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int row = 0; row < 200; ++row) {
    out.update([&] {
      ++made;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a large report's cost
      return "row " + std::to_string(row);
    });
  }
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(read(path("r.json")).rfind("row 0", 0), 0U) << "the first update writes at once";
  // Every rewrite costs >= 2 ms and waits 20 times its cost: at most run / 40 ms of them, plus the first.
  EXPECT_LE(made, static_cast<int>(run_s / 0.040) + 2) << "over " << run_s << " s";
  EXPECT_LT(made, 50) << "without pacing every one of the 200 updates would rewrite";
  out.finish("the end", "complete");
  EXPECT_EQ(read(path("r.json")), "the end");
}

TEST_F(ReportOutputTest, ACheapReportIsRewrittenAfterEveryRowThatTakesLonger) {
  ReportOutput out(path("r.csv"));
  int made = 0;
  for (int row = 0; row < 5; ++row) {
    out.update([&] {
      ++made;
      return "row " + std::to_string(row);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a row's measurement
  }
  EXPECT_EQ(made, 5);
  EXPECT_EQ(read(path("r.csv")), "row 4");
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
