// The interleaved gate's runs: commands run to their end or deadline in a process group of their own (what they
// started goes with them), each side's report written where the gate asks, ABBA order, and every way a run can fail
// named with its output kept. The commands are shell lines that copy a real report; the e2e suite runs distbench.
#include "compare/command_run.hpp"
#include "compare/interleaved.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace distbench {
namespace {

namespace fs = std::filesystem;

class Interleaved : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/distbench-interleaved-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    const char* root = std::getenv("DISTBENCH_SOURCE_ROOT");
    ASSERT_NE(root, nullptr) << "run through meson test (DISTBENCH_SOURCE_ROOT names the sources)";
    report_ = (fs::path(root) / "tests/fuzz/corpus/report/allreduce_sweep.json").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::string dir_, report_;
};

TEST_F(Interleaved, ACommandRunsToItsEndWithItsOutputInTheLog) {
  CommandRunner runner;
  const std::string log = dir_ + "/a.log";
  const CommandOutcome r = runner.run("echo to-stdout; echo to-stderr >&2; exit 3", log, 30);
  EXPECT_EQ(r.status, 3);
  EXPECT_FALSE(r.timed_out);
  EXPECT_NE(read(log).find("to-stdout"), std::string::npos);
  EXPECT_NE(read(log).find("to-stderr"), std::string::npos);
  EXPECT_EQ(last_line_of(log), "to-stderr");
  EXPECT_EQ(runner.run("kill -TERM $$", log, 30).status, 128 + SIGTERM);
}

TEST_F(Interleaved, ATimedOutCommandEndsWithEverythingItStarted) {
  CommandRunner runner;
  const std::string pid_file = dir_ + "/child.pid";
  const auto start = std::chrono::steady_clock::now();
  // The shell starts a child of its own and waits: both must go when the deadline passes.
  const CommandOutcome r = runner.run("sleep 60 & echo $! > " + pid_file + "; wait", dir_ + "/t.log", 0.5);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(took, 20.0);
  const pid_t child = std::stoi(read(pid_file));
  // The child may take a moment to be reaped by init; it must be gone (or a zombie no one waits for) soon.
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = ::kill(child, 0) != 0 || read("/proc/" + std::to_string(child) + "/stat").find(") Z") != std::string::npos;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(gone) << "the timed-out command's child " << child << " still runs";
}

TEST_F(Interleaved, TheReportGoesWhereTheGateAsks) {
  EXPECT_EQ(command_with_report("mpirun -np 2 distbench allreduce", "/r/x.json"),
            "mpirun -np 2 distbench allreduce --json /r/x.json");  // nothing a shell would read otherwise
  EXPECT_EQ(command_with_report("run.sh --out {report} && cp {report} /tmp", "/r/it's.json"),
            "run.sh --out '/r/it'\\''s.json' && cp '/r/it'\\''s.json' /tmp");
}

TEST_F(Interleaved, RoundsAlternateAndEveryRunIsKept) {
  InterleavedPlan plan;
  const std::string order = dir_ + "/order";
  plan.baseline_command = "echo A >> " + order + "; cp " + report_ + " {report}";
  plan.candidate_command = "echo B >> " + order + "; cp " + report_ + " {report}";
  plan.rounds = 3;
  plan.runs_dir = dir_ + "/runs";
  CommandRunner runner;
  int lines = 0;
  const InterleavedRuns runs = run_interleaved(plan, runner, [&](const std::string&) { ++lines; });
  EXPECT_EQ(read(order), "A\nB\nB\nA\nA\nB\n");  // ABBA: the baseline first in odd rounds
  EXPECT_EQ(runs.baseline.size(), 3u);
  EXPECT_EQ(runs.candidate.size(), 3u);
  EXPECT_EQ(lines, 6);
  for (const char* name : {"round01-baseline.json", "round02-candidate.log", "round03-candidate.json"}) {
    EXPECT_TRUE(fs::exists(plan.runs_dir + "/" + name)) << name;
  }
  // The folder now holds runs: a second gate may not mix its runs with these.
  try {
    run_interleaved(plan, runner, [](const std::string&) {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("not empty"), std::string::npos) << e.what();
  }
}

TEST_F(Interleaved, ARunThatFailsEndsTheGateClosedAndSaysWhich) {
  CommandRunner runner;
  int tries = 0;
  auto failing = [&](const std::string& candidate, const std::string& expected, double timeout_s = 60) {
    InterleavedPlan plan;
    plan.baseline_command = "cp " + report_ + " {report}";
    plan.candidate_command = candidate;
    plan.rounds = 2;
    plan.run_timeout_s = timeout_s;
    plan.runs_dir = dir_ + "/runs-" + std::to_string(++tries);
    try {
      run_interleaved(plan, runner, [](const std::string&) {});
      ADD_FAILURE() << candidate << " was not refused";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::not_judged) << e.what();
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
    // What was measured before the failure stays.
    EXPECT_TRUE(fs::exists(plan.runs_dir + "/round01-baseline.json"));
  };
  failing("echo 'error: no such collective' >&2; exit 2",
          "round 1's candidate run exited with status 2; its output is in");
  failing("echo 'error: no such collective' >&2; exit 2", "(last line: error: no such collective)");
  failing("true", "round 1's candidate run wrote no report");
  failing("sleep 30; true", "round 1's candidate run outlived its 0.3 s deadline", 0.3);
}

}  // namespace
}  // namespace distbench
