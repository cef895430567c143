// A run's keeper, through CommandRunner: nothing the command started outlives the run, whether it ended, timed out or
// lost compare (SIGKILL); daemons that left the process group (setsid) and orphans are found too; what ends on SIGTERM
// gets its time to end what it started (as mpirun ends its ranks) before anything is killed, and what a launcher
// started hears SIGTERM before the launcher; the output is capped.
#include "compare/command_run.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
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
using Clock = std::chrono::steady_clock;

class Keeper : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/distbench-keeper-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // The pid a command wrote to `name`, waiting up to 20 s for it.
  pid_t pid_in(const std::string& name) const {
    for (int i = 0; i < 400; ++i) {
      const std::string text = read(path(name));
      if (!text.empty() && text.back() == '\n') return std::stoi(text);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ADD_FAILURE() << name << " was never written";
    return -1;
  }

  // Whether `pid` still runs (a zombie does not).
  static bool runs(pid_t pid) {
    if (pid <= 0 || ::kill(pid, 0) != 0) return false;
    return read("/proc/" + std::to_string(pid) + "/stat").find(") Z") == std::string::npos;
  }

  // Waits up to `seconds` for `pid` to be gone; whether it is.
  static bool gone_within(pid_t pid, double seconds) {
    const auto end = Clock::now() + std::chrono::duration<double>(seconds);
    while (runs(pid) && Clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return !runs(pid);
  }

  static void end(pid_t pid) {
    if (runs(pid)) ::kill(pid, SIGKILL);
  }

  std::string dir_;
};

TEST_F(Keeper, WhatACommandLeftRunningEndsWithIt) {
  CommandRunner runner;
  // A setsid daemon (a session and process group of its own) and an orphan (its parent, a subshell, ended at once).
  const std::string command =
      "setsid sleep 1000 & echo $! > " + path("daemon") + "; (sleep 1000 & echo $! > " + path("orphan") + ") ; exit 0";
  const CommandOutcome r = runner.run(command, path("log"), 60);
  EXPECT_EQ(r.status, 0);
  EXPECT_FALSE(r.timed_out);
  const pid_t daemon = pid_in("daemon"), orphan = pid_in("orphan");
  EXPECT_FALSE(runs(daemon)) << "the setsid daemon " << daemon << " outlived its run";
  EXPECT_FALSE(runs(orphan)) << "the orphan " << orphan << " outlived its run";
  end(daemon);
  end(orphan);
}

TEST_F(Keeper, ATimeoutEndsDaemonsWithSIGTERMThenSIGKILL) {
  CommandRunner runner;
  // One daemon says it got SIGTERM and ends; the other ignores it and must be killed after the grace.
  const std::string polite = "setsid sh -c 'trap \"echo term >> " + path("polite.said") +
                             "; exit 0\" TERM; echo $$ > " + path("polite") + "; while :; do sleep 0.05; done' &";
  const std::string deaf = "setsid sh -c 'trap \"\" TERM; echo $$ > " + path("deaf") + "; exec sleep 1000' &";
  const auto start = Clock::now();
  const CommandOutcome r = runner.run(polite + " " + deaf + " sleep 1000", path("log"), 1.0);
  const double took = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(took, 20.0);
  const pid_t polite_pid = pid_in("polite"), deaf_pid = pid_in("deaf");
  EXPECT_FALSE(runs(polite_pid));
  EXPECT_FALSE(runs(deaf_pid)) << "the daemon that ignores SIGTERM outlived its run";
  EXPECT_EQ(read(path("polite.said")), "term\n");  // SIGTERM first, and once
  end(polite_pid);
  end(deaf_pid);
}

TEST_F(Keeper, ALauncherGetsTimeToEndWhatItStarted) {
  CommandRunner runner;
  // As mpirun: a process (not the shell at the top, which SIGTERM ends at once) that on SIGTERM takes a second to end
  // a child of another session, one that ignores SIGTERM, and says so. The shell's `; true` keeps it apart.
  const std::string launcher =
      "sh -c 'trap \"sleep 1; kill -9 \\$child; echo ended-its-child > " + path("launcher.said") +
      "; exit 0\" TERM; setsid sh -c \"trap \\\"\\\" TERM; exec sleep 1000\" & child=$!; echo $child > " +
      path("child") + "; while :; do sleep 0.05; done'; true";
  const CommandOutcome r = runner.run(launcher, path("log"), 1.0);
  EXPECT_TRUE(r.timed_out);
  const pid_t child = pid_in("child");
  EXPECT_EQ(read(path("launcher.said")), "ended-its-child\n") << read(path("log"));
  EXPECT_FALSE(runs(child));
  end(child);
}

TEST_F(Keeper, WhatALauncherStartedHearsFirst) {
  // As mpirun, which ends its ranks by SIGKILL as soon as it has SIGTERM: a launcher that kills its child at once on
  // SIGTERM, and a child (no child of its own: a loop of builtins) that takes 0.3 s to say it had SIGTERM. Signalled
  // together, the child would die unheard; the bottom of the tree is asked first, and its parent once it has ended.
  std::ofstream(path("child.sh")) << "trap 'sleep 0.3; echo term > " << path("child.said") << "; exit 0' TERM\n"
                                  << "echo $$ > " << path("child") << "\nwhile :; do :; done\n";
  std::ofstream(path("launcher.sh")) << "trap 'kill -9 $child; exit 0' TERM\nsh " << path("child.sh")
                                     << " & child=$!\nwhile :; do sleep 0.05; done\n";
  const std::string launcher = "sh " + path("launcher.sh") + "; true";
  CommandRunner runner;
  const CommandOutcome r = runner.run(launcher, path("log"), 1.0);
  EXPECT_TRUE(r.timed_out);
  const pid_t child_pid = pid_in("child");
  EXPECT_EQ(read(path("child.said")), "term\n") << read(path("log"));
  EXPECT_FALSE(runs(child_pid));
  end(child_pid);
}

TEST_F(Keeper, TheRunEndsWhenItsCallerIsKilled) {
  // A process running the command as compare does, then killed by SIGKILL: nothing of its run may stay.
  const pid_t caller = ::fork();
  ASSERT_GE(caller, 0);
  if (caller == 0) {
    CommandRunner runner;
    runner.run(
        "setsid sleep 1000 & echo $! > " + path("daemon") + "; sleep 1000 & echo $! > " + path("sleeper") + "; wait",
        path("log"), 600);
    ::_exit(0);
  }
  const pid_t daemon = pid_in("daemon"), sleeper = pid_in("sleeper");
  ASSERT_TRUE(runs(daemon));
  ::kill(caller, SIGKILL);
  ::waitpid(caller, nullptr, 0);
  EXPECT_TRUE(gone_within(sleeper, 10)) << "the run's command " << sleeper << " outlived its killed caller";
  EXPECT_TRUE(gone_within(daemon, 10)) << "the run's daemon " << daemon << " outlived its killed caller";
  end(daemon);
  end(sleeper);
}

TEST_F(Keeper, TheLogKeepsTheHeadAndTheTailOfAHugeOutput) {
  CommandRunner runner;
  // 20 MB without a newline, then a last word.
  const CommandOutcome r =
      runner.run("head -c 20000000 /dev/zero | tr '\\0' x; echo; echo the-last-line", path("log"), 60);
  EXPECT_EQ(r.status, 0);
  const auto size = fs::file_size(path("log"));
  EXPECT_LT(size, 2u * 1024 * 1024 + 256) << "the log holds the whole output";
  const std::string log = read(path("log"));
  EXPECT_EQ(log.find_first_not_of('x'), 1u << 20);  // the first MiB as it came
  EXPECT_NE(log.find("bytes of output dropped here by distbench compare"), std::string::npos);
  EXPECT_EQ(last_line_of(path("log")), "the-last-line");
}

}  // namespace
}  // namespace distbench::compare
