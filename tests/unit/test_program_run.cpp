// One program run as an argument vector (core/sys/program_run): found on a PATH, its arguments as given (no shell
// reads them), its output within a cap, killed at its deadline, started with no blocked or ignored signal and no file
// of ours.
#include "core/sys/program_run.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace distbench {
namespace {

constexpr const char* kSystemPath = "/usr/bin:/bin";

std::string tool(const char* name) {
  const auto found = find_on_path(name, kSystemPath);
  EXPECT_TRUE(found.has_value()) << name;
  return found.value_or(name);
}

TEST(ProgramRun, ArgumentsReachTheProgramAsGivenNoShellReadsThem) {
  const auto folder = std::filesystem::temp_directory_path() / ("program_run_" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const std::string pwn = (folder / "PWN").string();
  const std::vector<std::string> hostile = {"a b",
                                            "$(touch " + pwn + ")",
                                            "`touch " + pwn + "`",
                                            "x;touch " + pwn,
                                            "'q' \"d\" \\",
                                            "Reason=distbench health: failed: x=1"};
  std::vector<std::string> argv = {tool("printf"), "%s\\n"};
  argv.insert(argv.end(), hostile.begin(), hostile.end());
  const ProgramOutcome o = run_program(argv, 10, 4096);
  ASSERT_TRUE(o.ok()) << o.error << o.err;
  std::string expected;
  for (const auto& h : hostile) expected += h + "\n";
  EXPECT_EQ(o.out, expected);
  EXPECT_FALSE(std::filesystem::exists(pwn));
  std::filesystem::remove_all(folder);
}

TEST(ProgramRun, ExitStatusAndWhatItSaidLast) {
  const ProgramOutcome f = run_program({tool("false")}, 10, 4096);
  EXPECT_TRUE(f.started);
  EXPECT_FALSE(f.ok());
  EXPECT_EQ(f.status, 1);
  const ProgramOutcome ls = run_program({tool("ls"), "/nonexistent-distbench-test"}, 10, 4096);
  EXPECT_NE(ls.status, 0);
  EXPECT_NE(last_output_line(ls).find("nonexistent-distbench-test"), std::string::npos) << ls.err;
  ProgramOutcome said;
  said.err = "first\n  slurm_update error: Invalid node name specified  \n\n";
  EXPECT_EQ(last_output_line(said), "slurm_update error: Invalid node name specified");
  said.err.clear();
  said.out = "only out\n";
  EXPECT_EQ(last_output_line(said), "only out");
}

TEST(ProgramRun, KilledAtItsDeadline) {
  const auto began = std::chrono::steady_clock::now();
  const ProgramOutcome o = run_program({tool("sleep"), "30"}, 0.2, 4096);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  EXPECT_TRUE(o.started);
  EXPECT_TRUE(o.timed_out);
  EXPECT_FALSE(o.ok());
  EXPECT_EQ(o.status, 128 + SIGKILL);
  EXPECT_LT(took, 10);  // not the 30 s it asked for
}

TEST(ProgramRun, OutputKeptWithinTheCapTheRestReadAndDropped) {
  const ProgramOutcome o = run_program({tool("head"), "-c", "300000", "/dev/zero"}, 10, 1000);
  EXPECT_TRUE(o.ok()) << o.error;  // it was not blocked on a full pipe
  EXPECT_EQ(o.out.size(), 1000U);
  EXPECT_TRUE(o.cut);
}

TEST(ProgramRun, AProgramThatCannotStartSaysWhy) {
  const ProgramOutcome o = run_program({"/nonexistent-distbench-test/scontrol"}, 10, 4096);
  EXPECT_FALSE(o.started);
  EXPECT_FALSE(o.ok());
  EXPECT_NE(o.error.find("No such file"), std::string::npos) << o.error;
}

TEST(ProgramRun, TheChildBlocksAndIgnoresNoSignalAndHasNoFileOfOurs) {
  sigset_t term, before;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, &before);
  auto* pipe_was = std::signal(SIGPIPE, SIG_IGN);
  const int ours = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC: a child would inherit it
  const ProgramOutcome status = run_program({tool("grep"), "-E", "^Sig(Blk|Ign):", "/proc/self/status"}, 10, 4096);
  const ProgramOutcome fds = run_program({tool("ls"), "/proc/self/fd"}, 10, 4096);
  ::close(ours);
  std::signal(SIGPIPE, pipe_was);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  // Each mask in hex, bit N-1 for signal N; glibc's own signals (32, 33) are not ours to reset.
  unsigned long long blocked = ~0ULL, ignored = ~0ULL;
  ASSERT_EQ(std::sscanf(status.out.c_str(), "SigBlk:\t%llx\nSigIgn:\t%llx", &blocked, &ignored), 2) << status.out;
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGPIPE}) {
    EXPECT_EQ(blocked & (1ULL << (s - 1)), 0U) << "blocked: " << s;
    EXPECT_EQ(ignored & (1ULL << (s - 1)), 0U) << "ignored: " << s;
  }
  EXPECT_EQ(blocked, 0U);
  EXPECT_EQ(fds.out, "0\n1\n2\n3\n") << "ls's own directory is 3; " << ours << " must not be there";
}

TEST(ProgramRun, FindOnPathTakesTheFirstExecutableFile) {
  const auto folder = std::filesystem::temp_directory_path() / ("find_on_path_" + std::to_string(::getpid()));
  const auto a = folder / "a", b = folder / "b";
  std::filesystem::create_directories(a);
  std::filesystem::create_directories(b);
  std::ofstream(a / "scontrol") << "not executable\n";
  std::ofstream(b / "scontrol") << "#!/bin/true\n";
  std::filesystem::permissions(b / "scontrol", std::filesystem::perms::owner_all);
  std::filesystem::create_directories(a / "dir_named_so");
  const std::string path = a.string() + "::" + b.string();
  EXPECT_EQ(find_on_path("scontrol", path), (b / "scontrol").string());
  EXPECT_EQ(find_on_path("dir_named_so", a.string()), std::nullopt);
  EXPECT_EQ(find_on_path("scontrol", a.string()), std::nullopt);
  EXPECT_EQ(find_on_path("scontrol", ""), std::nullopt);
  EXPECT_EQ(find_on_path((b / "scontrol").string(), ""), (b / "scontrol").string());
  EXPECT_EQ(find_on_path("", path), std::nullopt);
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace distbench
