// The interleaved gate's runs: commands run to their end or deadline in a process group of their own (what they
// started goes with them), each side's report written where the gate asks ($DISTBENCH_REPORT, safe at any depth of
// quoting), ABBA order, and every way a run can fail named with its output kept. The commands are shell lines that
// copy a real report; the e2e suites run distbench.
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

namespace distbench::compare {
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
  // Through the environment, never as text spliced into the command: a reference the shell expands at any depth.
  EXPECT_EQ(command_with_report("mpirun -np 2 distbench allreduce"),
            "mpirun -np 2 distbench allreduce --json \"${DISTBENCH_REPORT}\"");
  EXPECT_EQ(command_with_report("run.sh --out {report} && sh -c 'cp {report} \"/tmp/{report}.x\"'"),
            "run.sh --out ${DISTBENCH_REPORT} && sh -c 'cp ${DISTBENCH_REPORT} \"/tmp/${DISTBENCH_REPORT}.x\"'");
  // A runs folder whose name a shell could read as anything but text is refused, naming the option.
  for (const char* bad : {"x;touch PWNED;y", "a b", "a\tb", "a*", "a[1]", "a\\b", "a\nb", "$(id)", "`id`", "a'b",
                          "a\"b", "~/runs", "a{b,c}", "a&b", "a|b", "a>b", "#a", "a!b", ""}) {
    try {
      check_runs_dir_name(bad, "--runs-dir");
      ADD_FAILURE() << bad << " was not refused";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      EXPECT_EQ(std::string(e.what()).rfind("--runs-dir ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find("may hold letters, digits and _ @ % + = : , . / - only"), std::string::npos)
          << e.what();
    }
  }
  for (const char* good : {"runs", "/tmp/distbench-interleaved-Ab3xYz", "../a,b@c%d+e=f:g", "r\u00e9sultats"}) {
    EXPECT_NO_THROW(check_runs_dir_name(good, "--runs-dir")) << good;
  }
}

TEST_F(Interleaved, TheReportPathReachesNestedShells) {
  // {report} handed to a shell inside a shell, bare in single quotes and in escaped double quotes: the report lands
  // where the gate asked, and the command may read $DISTBENCH_REPORT itself.
  InterleavedPlan plan;
  plan.runs_dir = dir_ + "/a,b@c%d+e=f:g";
  plan.baseline_command = "sh -c 'cp " + report_ + " {report}'";
  plan.candidate_command = "sh -c \"cp " + report_ + " \\\"{report}\\\"\" && test -s \"$DISTBENCH_REPORT\"";
  plan.rounds = 1;
  CommandRunner runner;
  const InterleavedRuns runs = run_interleaved(plan, runner, [](const std::string&) {});
  EXPECT_EQ(runs.baseline.size(), 1u);
  EXPECT_EQ(runs.candidate.size(), 1u);
  EXPECT_TRUE(fs::exists(plan.runs_dir + "/round01-candidate.json"));
}

TEST_F(Interleaved, ACorruptReportOrWrongElementsFailClosed) {
  CommandRunner runner;
  int tries = 0;
  auto refused = [&](const std::string& candidate, ExitCode code, const std::string& expected) {
    InterleavedPlan plan;
    plan.baseline_command = "cp " + report_ + " {report}";
    plan.candidate_command = candidate;
    plan.rounds = 1;
    plan.runs_dir = dir_ + "/runs-" + std::to_string(++tries);
    try {
      run_interleaved(plan, runner, [](const std::string&) {});
      ADD_FAILURE() << candidate << " was not refused";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  // The docs promise 7 for a run that wrote no readable report, not 2 (bad input: the command lines were fine).
  refused("printf '{\"schema_version\": 2, ' > {report}", ExitCode::not_judged,
          "round 1's candidate run wrote a report the gate cannot read: report '");
  // A benchmark that found wrong elements exits 3 with its report: the wrong elements are the news, and they fail
  // the gate with their own code.
  const std::string wrong = dir_ + "/wrong.json";
  {
    std::ifstream in(report_);
    std::stringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    for (std::size_t at = s.find("\"wrong\":0,"); at != std::string::npos; at = s.find("\"wrong\":0,", at)) {
      s.replace(at, 10, "\"wrong\":1000,");
    }
    std::ofstream(wrong) << s;
  }
  refused("cp " + wrong + " {report}; exit 3", ExitCode::wrong_results,
          "round 1's candidate run exited with status 3 and its report counts wrong elements: 8 B out-of-place (1000 "
          "wrong), 8 B in-place (1000 wrong), 16 B out-of-place (1000 wrong) and 5 more cases");
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
}  // namespace distbench::compare
