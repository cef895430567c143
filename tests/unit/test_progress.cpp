// The progress line: what each mode writes, and that erasing a live line that is not shown writes nothing.
#include "cli/progress.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <thread>

namespace distbench::cli {
namespace {

// Everything written to `f` so far.
std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string text;
  for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) text.push_back(static_cast<char>(c));
  return text;
}

TEST(Progress, ModesByName) {
  EXPECT_EQ(parse_progress_mode("auto"), ProgressMode::automatic);
  EXPECT_EQ(parse_progress_mode("on"), ProgressMode::on);
  EXPECT_EQ(parse_progress_mode("off"), ProgressMode::off);
  EXPECT_THROW(parse_progress_mode("yes"), Error);
}

TEST(Progress, OnWritesALinePerCaseAndNothingAtTheEnd) {
  std::FILE* f = std::tmpfile();
  {
    ProgressLine line(ProgressMode::on, false, f);
    line.step(0, 2, "allreduce 8 B");
    line.step(1, 2, "allreduce 16 B");
    line.step(2, 2, "");
    line.clear();
  }
  EXPECT_EQ(contents(f),
            "progress: [1/2] allreduce 8 B: 0 s (0 s since the start)\n"
            "progress: [2/2] allreduce 16 B: 0 s (0 s since the start)\n");
  std::fclose(f);
}

TEST(Progress, AutoAwayFromATerminalIsSilentForAShortCase) {
  std::FILE* f = std::tmpfile();
  {
    ProgressLine line(ProgressMode::automatic, false, f);
    line.step(0, 1, "allreduce 8 B");
    std::this_thread::sleep_for(std::chrono::milliseconds(600));  // the ticker runs, the case is not slow yet
    line.step(1, 1, "");
  }
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

TEST(Progress, LiveLineIsDrawnAfterASecondAndErasedByClear) {
  std::FILE* f = std::tmpfile();
  {
    ProgressLine line(ProgressMode::automatic, true, f);
    line.step(0, 3, "allreduce 8 B");
    std::this_thread::sleep_for(std::chrono::milliseconds(1400));
    line.clear();
  }
  const std::string text = contents(f);
  EXPECT_EQ(text.rfind("\r\033[K[1/3] allreduce 8 B: ", 0), 0u) << text;  // drawn after 1 s (or later, when busy)
  EXPECT_EQ(text.substr(text.size() - 4), "\r\033[K") << text;  // erased once, at clear(); not again at the end
  std::fclose(f);
}

TEST(Progress, OffWritesNothing) {
  std::FILE* f = std::tmpfile();
  {
    ProgressLine line(ProgressMode::off, true, f);
    line.step(0, 1, "allreduce 8 B");
    line.clear();
  }
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

}  // namespace
}  // namespace distbench::cli
