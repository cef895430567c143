#include "compare/command_run.hpp"

#include "compare/keeper.hpp"
#include "core/error.hpp"
#include "core/sys/deadline.hpp"
#include "core/sys/program_run.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <new>
#include <string_view>
#include <thread>

extern char** environ;

namespace distbench::compare {
namespace {

using Clock = std::chrono::steady_clock;

// A file descriptor closed with its owner.
class OwnedFd {
 public:
  explicit OwnedFd(int fd) : fd_(fd) {}
  ~OwnedFd() { reset(); }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// The keeper's results and scratch space, in memory the keeper and this process share; the pages the keeper does
// not touch cost nothing.
class SharedWithKeeper {
 public:
  SharedWithKeeper() {
    void* memory = ::mmap(nullptr, sizeof(KeeperShared), PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) {
      throw failure(
          fmt::format("cannot map {} bytes for a run's keeper: {}", sizeof(KeeperShared), std::strerror(errno)));
    }
    shared_ = new (memory) KeeperShared;
  }
  ~SharedWithKeeper() {
    shared_->~KeeperShared();
    ::munmap(shared_, sizeof(KeeperShared));
  }
  SharedWithKeeper(const SharedWithKeeper&) = delete;
  SharedWithKeeper& operator=(const SharedWithKeeper&) = delete;
  KeeperShared& get() { return *shared_; }

 private:
  KeeperShared* shared_ = nullptr;
};

// This process's environment with `added` ("NAME=value") in place of any variable of the same name.
std::vector<std::string> environment_with(const std::vector<std::string>& added) {
  auto name_of = [](std::string_view entry) { return entry.substr(0, entry.find('=')); };
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    bool replaced = false;
    for (const std::string& a : added) replaced = replaced || name_of(a) == name_of(entry);
    if (!replaced) out.emplace_back(entry);
  }
  out.insert(out.end(), added.begin(), added.end());
  return out;
}

// `/bin/sh -c command` and its environment, as the keeper executes them: everything the keeper uses is made before
// the fork, and after it the keeper only makes system calls.
class ShellCommand {
 public:
  ShellCommand(const std::string& command, const std::vector<std::string>& environment)
      : text_(command), env_(environment_with(environment)) {
    for (std::string& e : env_) envp_.push_back(e.data());
    envp_.push_back(nullptr);
  }
  ShellCommand(const ShellCommand&) = delete;
  ShellCommand& operator=(const ShellCommand&) = delete;
  char* const* argv() const { return argv_; }
  char* const* envp() const { return envp_.data(); }

 private:
  std::string shell_ = "/bin/sh", dash_c_ = "-c", text_;
  char* argv_[4] = {shell_.data(), dash_c_.data(), text_.data(), nullptr};
  std::vector<std::string> env_;
  std::vector<char*> envp_;
};

// The keeper's orders: the command, its input, its output's pipe and log, its deadline and grace.
KeeperPlan keeper_plan(const ShellCommand& shell, int stdin_fd, int write_fd, int read_fd, int log_fd,
                       double timeout_s) {
  KeeperPlan plan;
  plan.argv = shell.argv();
  plan.envp = shell.envp();
  plan.stdin_fd = stdin_fd;
  plan.output_write_fd = write_fd;
  plan.output_read_fd = read_fd;
  plan.log_fd = log_fd;
  plan.timeout_ns = timeout_nanoseconds(timeout_s);
  plan.grace_ns = timeout_nanoseconds(kKeeperGraceSeconds);
  plan.parent = ::getpid();
  return plan;
}

// What the keeper found, once it has exited (`status`: its wait status); throws when it could not do its work.
CommandOutcome outcome_of(const KeeperShared& r, int status, const std::string& command, Clock::time_point start) {
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw failure(
        fmt::format("the process keeping '{}' ended with status {}", excerpt(command), exit_status_of(status)));
  }
  if (r.start_errno != 0) {
    throw failure(fmt::format("cannot start '{}': {}", excerpt(command), std::strerror(r.start_errno)));
  }
  if (r.processes_remain) {
    throw failure(
        fmt::format("processes that '{}' started did not end within {:g} s of SIGKILL (uninterruptible "
                    "sleep?); look for them with ps",
                    excerpt(command), kKeeperKillWaitSeconds));
  }
  CommandOutcome out;
  out.status = r.command_ended ? exit_status_of(r.wait_status) : 128 + SIGKILL;
  out.timed_out = r.timed_out;
  out.stopped = r.stopped;
  out.left_behind = r.left_behind;
  out.output_bytes = r.output_bytes;
  out.output_dropped = r.output_dropped;
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

}  // namespace

CommandOutcome CommandRunner::run(const std::string& command, const std::string& log_path, double timeout_s,
                                  const std::vector<std::string>& environment) {
  const OwnedFd log(::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (log.get() < 0) {
    throw failure(fmt::format("cannot write the run's log {}: {} (is its folder writable?)", excerpt(log_path),
                              std::strerror(errno)));
  }
  const OwnedFd null_input(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int ends[2];
  if (null_input.get() < 0 || ::pipe2(ends, O_CLOEXEC) != 0) {
    throw failure(fmt::format("cannot prepare the run of '{}': {}", excerpt(command), std::strerror(errno)));
  }
  OwnedFd read_end(ends[0]), write_end(ends[1]);
  ::fcntl(read_end.get(), F_SETFL, O_NONBLOCK);
  const ShellCommand shell(command, environment);
  SharedWithKeeper shared;
  const KeeperPlan plan = keeper_plan(shell, null_input.get(), write_end.get(), read_end.get(), log.get(), timeout_s);

  const auto start = Clock::now();
  const pid_t keeper = ::fork();
  if (keeper < 0) {
    throw failure(fmt::format("cannot start '{}': {}", excerpt(command), std::strerror(errno)));
  }
  if (keeper == 0) run_keeper(plan, shared.get());
  keeper_.store(keeper);
  write_end.reset();
  read_end.reset();
  int status = 0;
  while (::waitpid(keeper, &status, 0) < 0 && errno == EINTR) {
  }
  keeper_.store(0);
  return outcome_of(shared.get(), status, command, start);
}

void CommandRunner::stop(double wait_s) {
  const pid_t keeper = keeper_.load();
  if (keeper <= 0) return;
  ::kill(keeper, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::nanoseconds(timeout_nanoseconds(wait_s));
  while (Clock::now() < deadline) {
    siginfo_t info{};
    // WNOWAIT: run() reaps it; an error means it has already.
    if (::waitid(P_PID, static_cast<id_t>(keeper), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == keeper) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string last_line_of(const std::string& path) {
  constexpr std::streamoff kWindow = 64 * 1024;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  in.seekg(size > kWindow ? size - kWindow : 0);
  std::string tail(static_cast<std::size_t>(size > kWindow ? kWindow : std::max<std::streamoff>(size, 0)), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  tail.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  std::size_t end = tail.size();
  while (end > 0) {
    const std::size_t begin = tail.rfind('\n', end - 1);
    const std::size_t from = begin == std::string::npos ? 0 : begin + 1;
    const std::string_view line(tail.data() + from, end - from);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) return excerpt(line);
    if (begin == std::string::npos) break;
    end = begin;
  }
  return "";
}

}  // namespace distbench::compare
