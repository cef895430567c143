#include "compare/command_run.hpp"

#include "core/error.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace distbench {
namespace {

using Clock = std::chrono::steady_clock;

int status_of(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

// Waits for `pid` until `deadline`; true (and `status` set) when it ended.
bool wait_until(pid_t pid, Clock::time_point deadline, int& status) {
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return true;
    if (done < 0 && errno != EINTR) {
      status = 0;
      return true;  // not our child any more (reaped elsewhere): nothing left to wait for
    }
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// The file actions and attributes of a command's process: stdin from /dev/null, stdout and stderr to the log, its
// own process group, an empty signal mask and default dispositions for the signals this process handles or ignores.
class SpawnSetup {
 public:
  explicit SpawnSetup(const std::string& log_path) {
    ::posix_spawn_file_actions_init(&actions_);
    ::posix_spawnattr_init(&attr_);
    ::posix_spawn_file_actions_addopen(&actions_, 0, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_addopen(&actions_, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::posix_spawn_file_actions_adddup2(&actions_, 1, 2);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) sigaddset(&defaults, s);
    ::posix_spawnattr_setsigmask(&attr_, &none);
    ::posix_spawnattr_setsigdefault(&attr_, &defaults);
    ::posix_spawnattr_setpgroup(&attr_, 0);
    ::posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  }
  ~SpawnSetup() {
    ::posix_spawn_file_actions_destroy(&actions_);
    ::posix_spawnattr_destroy(&attr_);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;

  const posix_spawn_file_actions_t* actions() const { return &actions_; }
  const posix_spawnattr_t* attr() const { return &attr_; }

 private:
  posix_spawn_file_actions_t actions_;
  posix_spawnattr_t attr_;
};

}  // namespace

CommandOutcome CommandRunner::run(const std::string& command, const std::string& log_path, double timeout_s) {
  const SpawnSetup setup(log_path);
  std::string shell = "/bin/sh", dash_c = "-c", text = command;
  char* argv[] = {shell.data(), dash_c.data(), text.data(), nullptr};
  const auto start = Clock::now();
  pid_t pid = 0;
  if (const int rc = ::posix_spawn(&pid, "/bin/sh", setup.actions(), setup.attr(), argv, environ); rc != 0) {
    throw failure(fmt::format("cannot start '{}': {} (is the log's folder writable? {})", excerpt(command),
                              std::strerror(rc), excerpt(log_path)));
  }
  running_.store(pid);
  CommandOutcome out;
  int status = 0;
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  if (!wait_until(pid, deadline, status)) {
    out.timed_out = true;
    ::kill(-pid, SIGTERM);
    if (!wait_until(pid, Clock::now() + std::chrono::seconds(5), status)) {
      ::kill(-pid, SIGKILL);
      wait_until(pid, Clock::now() + std::chrono::seconds(30), status);
    }
  }
  // Whatever the command left behind in its group (a daemon, an orphaned rank) goes with it.
  ::kill(-pid, SIGKILL);
  running_.store(0);
  out.status = status_of(status);
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

void CommandRunner::stop(double grace_s) {
  const pid_t pid = running_.load();
  if (pid <= 0) return;
  ::kill(-pid, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(grace_s));
  while (Clock::now() < deadline && ::kill(-pid, 0) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(-pid, SIGKILL);
}

std::string last_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  return excerpt(last);
}

}  // namespace distbench
