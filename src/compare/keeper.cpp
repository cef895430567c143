#include "compare/keeper.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>

namespace distbench::compare {
namespace {

constexpr int kParentDied = SIGUSR1;  // the parent-death signal: compare ended, however
constexpr int kTickMs = 20;           // how often the keeper looks for processes to end while it ends them

std::int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

sigset_t keeper_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT, kParentDied}) sigaddset(&set, s);
  return set;
}

// The command's side of the fork: its own process group, stdin from /dev/null, stdout and stderr to the pipe, every
// signal at its default and none blocked (compare ignores SIGPIPE and blocks the termination signals; exec would keep
// both), then the shell.
[[noreturn]] void exec_command(const KeeperPlan& plan) {
  ::setpgid(0, 0);
  ::dup2(plan.stdin_fd, STDIN_FILENO);
  ::dup2(plan.output_write_fd, STDOUT_FILENO);
  ::dup2(plan.output_write_fd, STDERR_FILENO);
  struct sigaction defaults {};
  defaults.sa_handler = SIG_DFL;
  sigemptyset(&defaults.sa_mask);
  for (int s = 1; s < NSIG; ++s) {
    if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &defaults, nullptr);  // glibc's own real-time ones refuse: fine
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(plan.shell, plan.argv, plan.envp);
  ::_exit(127);
}

class Keeper {
 public:
  Keeper(const KeeperPlan& plan, KeeperShared& shared)
      : plan_(plan), s_(shared), cap_(plan.log_fd, kOutputHeadBytes, shared.output_ring, sizeof shared.output_ring) {}

  [[noreturn]] void run() {
    const sigset_t mask = keeper_signals();
    ::sigprocmask(SIG_SETMASK, &mask, nullptr);  // before the parent-death signal, whose default would end us
    signals_fd_ = ::signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    ::prctl(PR_SET_PDEATHSIG, kParentDied);
    if (::getppid() != plan_.parent) stop_ = true;  // compare was gone before the signal was set
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);

    const std::int64_t start = now_ns();
    started_ = start;
    command_ = ::_Fork();
    if (command_ == 0) exec_command(plan_);
    if (command_ < 0) {
      s_.start_errno = errno;
      ::close(plan_.output_write_fd);
      finish(start);
    }
    ::setpgid(command_, command_);  // as the child does: whichever runs first
    ::close(plan_.output_write_fd);
    const std::int64_t deadline = start + plan_.timeout_ns;
    end_at_ = deadline;
    while (true) {
      reap();
      const std::int64_t now = now_ns();
      if (phase_ == Phase::running) {
        if (s_.command_ended) {
          begin_ending(now);
        } else if (now >= deadline) {
          s_.timed_out = true;
          begin_ending(now);
        } else if (stop_) {
          s_.stopped = true;
          begin_ending(now);
        }
      }
      if (phase_ != Phase::running) {
        if (no_children_) break;
        if (phase_ == Phase::ending && !all_signalled_) terminate_leaves(now >= everyone_at_);
        if (phase_ == Phase::ending && now >= end_at_) {
          phase_ = Phase::killing;
          end_at_ = now + static_cast<std::int64_t>(kKeeperKillWaitSeconds * 1e9);
        }
        if (phase_ == Phase::killing) {
          kill_all();
          if (now >= end_at_) {
            s_.processes_remain = true;
            break;
          }
        }
      }
      const std::int64_t wait_ns = phase_ == Phase::running ? std::min<std::int64_t>(deadline - now, 1'000'000'000)
                                                            : std::int64_t{kTickMs} * 1'000'000;
      wait_for_events(static_cast<int>(std::max<std::int64_t>(wait_ns / 1'000'000, 1)));
    }
    finish(start);
  }

 private:
  enum class Phase { running, ending, killing };

  void begin_ending(std::int64_t now) {
    s_.elapsed_ns = (s_.command_ended ? ended_at_ : now) - started_;
    std::memset(s_.signalled, 0, sizeof s_.signalled);
    const std::size_t remaining = terminate_leaves(false);
    if (s_.command_ended) s_.left_behind = remaining;
    phase_ = Phase::ending;
    end_at_ = now + plan_.grace_ns;
    everyone_at_ = now + plan_.grace_ns / 2;
  }

  // Reaps every child that ended (the command, and whatever the keeper adopted); notes when none is left.
  void reap() {
    while (true) {
      int status = 0;
      const pid_t done = ::waitpid(-1, &status, WNOHANG | __WALL);
      if (done > 0) {
        if (done == command_) {
          s_.wait_status = status;
          s_.command_ended = true;
          ended_at_ = now_ns();
        }
        continue;
      }
      if (done < 0 && errno == EINTR) continue;
      no_children_ = done < 0 && errno == ECHILD;
      return;
    }
  }

  std::size_t scan() {
    entries_ = scan_processes(s_.processes, kKeeperMaxProcesses, s_.dents, sizeof s_.dents);
    return descendants_of(::getpid(), s_.processes, entries_, s_.marks, s_.found, kKeeperMaxProcesses);
  }

  // SIGTERM (and SIGCONT, so that a stopped process can act on it), once each, to the processes below the keeper
  // that have no child, or to all of them once `everyone`: the bottom of the tree first, so that a launcher is asked
  // only once what it started has ended (mpirun, on SIGTERM, ends its ranks by SIGKILL within milliseconds; asked
  // first, its ranks could not write their reports). Run each tick: a parent whose children have ended is a leaf
  // then. Once is the rule because mpirun may take a second signal as a request to exit at once, without ending its
  // ranks. Returns how many processes were below the keeper.
  std::size_t terminate_leaves(bool everyone) {
    const std::size_t n = scan();
    mark_parents(s_.processes, entries_, s_.marks);  // descendants_of is done with its marks
    for (std::size_t i = 0; i < n; ++i) {
      const pid_t pid = s_.found[i];
      if (pid_marked(s_.signalled, pid)) continue;
      if (!everyone && pid_marked(s_.marks, pid)) continue;
      ::kill(pid, SIGTERM);
      ::kill(pid, SIGCONT);
      mark_pid(s_.signalled, pid);
    }
    all_signalled_ = everyone;  // what is born afterwards (a launcher's clean-up) is left to finish
    return n;
  }

  void kill_all() {
    // The group by its id only while its leader is unreaped: once reaped, the id may name someone else's group.
    if (!s_.command_ended) ::kill(-command_, SIGKILL);
    const std::size_t n = scan();
    for (std::size_t i = 0; i < n; ++i) ::kill(s_.found[i], SIGKILL);
  }

  void read_signals() {
    signalfd_siginfo info{};
    while (::read(signals_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      if (info.ssi_signo != SIGCHLD) stop_ = true;
    }
  }

  // Reads what the command wrote, up to 16 pieces at a time (the signals and the deadline are looked at between).
  void read_output() {
    for (int piece = 0; piece < 16 && output_open_; ++piece) {
      const ssize_t n = ::read(plan_.output_read_fd, s_.read_buffer, sizeof s_.read_buffer);
      if (n > 0) {
        cap_.take(s_.read_buffer, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) {
        output_open_ = false;  // every writer is gone
        ::close(plan_.output_read_fd);
      }
      return;  // EAGAIN: nothing more now
    }
  }

  void wait_for_events(int timeout_ms) {
    pollfd fds[2] = {{signals_fd_, POLLIN, 0}, {output_open_ ? plan_.output_read_fd : -1, POLLIN, 0}};
    const int ready = ::poll(fds, 2, timeout_ms);
    if (ready <= 0) return;
    if (fds[0].revents != 0) read_signals();
    if (fds[1].revents != 0) read_output();
  }

  [[noreturn]] void finish(std::int64_t start) {
    // Every writer of the output is gone (unless one escaped the keeper): what they wrote last is read to its end, for
    // two seconds at most.
    const std::int64_t drain_end = now_ns() + 2'000'000'000;
    while (output_open_ && now_ns() < drain_end) {
      pollfd fd{plan_.output_read_fd, POLLIN, 0};
      if (::poll(&fd, 1, 100) > 0) read_output();
    }
    cap_.finish();
    s_.output_bytes = cap_.total();
    s_.output_dropped = cap_.dropped();
    if (s_.elapsed_ns == 0) s_.elapsed_ns = now_ns() - start;
    ::_exit(0);
  }

  const KeeperPlan& plan_;
  KeeperShared& s_;
  OutputCap cap_;
  int signals_fd_ = -1;
  pid_t command_ = -1;
  Phase phase_ = Phase::running;
  bool stop_ = false, no_children_ = false, output_open_ = true, all_signalled_ = false;
  std::size_t entries_ = 0;  // processes in the last scan
  std::int64_t started_ = 0, ended_at_ = 0, end_at_ = 0, everyone_at_ = 0;
};

}  // namespace

void run_keeper(const KeeperPlan& plan, KeeperShared& shared) { Keeper(plan, shared).run(); }

}  // namespace distbench::compare
