#include "core/sys/program_run.hpp"

#include "core/sys/deadline.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

extern char** environ;

namespace distbench {
namespace {

using ProgramClock = std::chrono::steady_clock;

bool executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// The file actions and attributes of the child (program_run.hpp says what it gets), freed on every path.
class SpawnSetup {
 public:
  SpawnSetup(int out_fd, int err_fd) {
    ::posix_spawn_file_actions_init(&actions_);
    ::posix_spawnattr_init(&attr_);
    ::posix_spawn_file_actions_addopen(&actions_, 0, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_adddup2(&actions_, out_fd, 1);
    ::posix_spawn_file_actions_adddup2(&actions_, err_fd, 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    ::posix_spawn_file_actions_addclosefrom_np(&actions_, 3);  // MPI's sockets and files stay ours
#endif
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    ::posix_spawnattr_setsigmask(&attr_, &none);
    ::posix_spawnattr_setsigdefault(&attr_, &all);
    ::posix_spawnattr_setpgroup(&attr_, 0);
    ::posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
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

// Both ends of a pipe, closed when done with.
struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) == 0) {
      read = fds[0];
      write = fds[1];
    }
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void close_read() {
    if (read >= 0) ::close(read);
    read = -1;
  }
  void close_write() {
    if (write >= 0) ::close(write);
    write = -1;
  }
};

// Reads stdout and stderr until both end or the deadline passes; true when they ended.
bool read_outputs(Pipe& out, Pipe& err, ProgramOutcome& o, std::size_t cap, ProgramClock::time_point deadline) {
  char buffer[4096];
  while (out.read >= 0 || err.read >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - ProgramClock::now()).count();
    if (left <= 0) return false;
    pollfd fds[2] = {{out.read, POLLIN, 0}, {err.read, POLLIN, 0}};  // a negative fd is ignored
    if (::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000))) < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    for (auto [pipe, text] : {std::pair{&out, &o.out}, std::pair{&err, &o.err}}) {
      const pollfd& p = pipe == &out ? fds[0] : fds[1];
      if (pipe->read < 0 || (p.revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t n = ::read(pipe->read, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        pipe->close_read();
        continue;
      }
      const std::size_t keep = std::min(static_cast<std::size_t>(n), cap - std::min(cap, text->size()));
      text->append(buffer, keep);
      if (keep < static_cast<std::size_t>(n)) o.cut = true;
    }
  }
  return true;
}

// Waits for the child until the deadline (false when it is still running then).
bool reap_by(pid_t pid, int& wait_status, ProgramClock::time_point deadline) {
  while (true) {
    const pid_t done = ::waitpid(pid, &wait_status, WNOHANG);
    if (done == pid) return true;
    if (done < 0 && errno != EINTR) return true;  // not ours to wait for any more
    if (ProgramClock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

std::optional<std::string> find_on_path(std::string_view program, std::string_view path) {
  if (program.empty()) return std::nullopt;
  if (program.find('/') != std::string_view::npos) {
    std::string p(program);
    return executable_file(p) ? std::optional(p) : std::nullopt;
  }
  std::size_t at = 0;
  while (at <= path.size()) {
    std::size_t end = path.find(':', at);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view folder = path.substr(at, end - at);
    if (!folder.empty()) {  // an empty entry is not taken for the current folder: this may run as root
      std::string candidate = fmt::format("{}/{}", folder, program);
      if (executable_file(candidate)) return candidate;
    }
    at = end + 1;
  }
  return std::nullopt;
}

ProgramOutcome run_program(const std::vector<std::string>& argv, double timeout_s, std::size_t cap_bytes) {
  ProgramOutcome o;
  Pipe out, err;
  if (out.read < 0 || err.read < 0) {
    o.error = fmt::format("pipe: {}", std::strerror(errno));
    return o;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto began = ProgramClock::now();
  const auto deadline = deadline_after(timeout_s);
  pid_t pid = 0;
  int rc = 0;
  {
    const SpawnSetup setup(out.write, err.write);
    rc = argv.empty() ? EINVAL : ::posix_spawn(&pid, args[0], setup.actions(), setup.attr(), args.data(), environ);
  }
  out.close_write();
  err.close_write();
  if (rc != 0) {
    o.error = fmt::format("posix_spawn {}: {}", argv.empty() ? "" : argv[0], std::strerror(rc));
    return o;
  }
  o.started = true;
  int wait_status = 0;
  const bool ended = read_outputs(out, err, o, cap_bytes, deadline) && reap_by(pid, wait_status, deadline);
  if (!ended) {
    o.timed_out = true;
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
    }
  }
  o.status = exit_status_of(wait_status);
  o.seconds = std::chrono::duration<double>(ProgramClock::now() - began).count();
  return o;
}

int exit_status_of(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return -1;
}

std::string last_output_line(const ProgramOutcome& outcome) {
  for (const std::string* text : {&outcome.err, &outcome.out}) {
    std::size_t end = text->size();
    while (end > 0) {
      const std::size_t begin = text->rfind('\n', end - 1);
      const std::size_t from = begin == std::string::npos ? 0 : begin + 1;
      std::string line = text->substr(from, end - from);
      const auto first = line.find_first_not_of(" \t\r");
      if (first != std::string::npos) return line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
      if (begin == std::string::npos) break;
      end = begin;
    }
  }
  return {};
}

}  // namespace distbench
