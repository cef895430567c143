#include "core/termination.hpp"

#include <pthread.h>
#include <signal.h>

#include <csignal>

namespace distbench {
namespace {

sigset_t termination_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

// The default action, as if nothing had been handled: unblock the signal and raise it again.
[[noreturn]] void die_by(int signal) {
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, nullptr);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, signal);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  raise(signal);
  _exit(exit_status_for_signal(signal));
}

}  // namespace

int exit_status_for_signal(int signal) { return 128 + signal; }

TerminationSignals::TerminationSignals() {
  // A closed stdout (the launcher stops reading while it tears the job down) must not kill the process with SIGPIPE
  // before its reports are written: the write fails instead.
  std::signal(SIGPIPE, SIG_IGN);
  const sigset_t set = termination_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  thread_ = std::thread([this] { watch(); });
}

TerminationSignals::~TerminationSignals() {
  stopping_ = true;
  pthread_kill(thread_.native_handle(), SIGHUP);  // wakes the waiting thread, which sees stopping_ and returns
  thread_.join();
}

void TerminationSignals::set_handler(Handler handler) {
  std::lock_guard lock(mutex_);
  handler_ = std::move(handler);
}

void TerminationSignals::watch() {
  const sigset_t set = termination_set();
  while (true) {
    int signal = 0;
    if (sigwait(&set, &signal) != 0) continue;
    if (stopping_) return;
    {
      std::lock_guard lock(mutex_);  // held while the handler runs: clearing it waits for a running handler
      if (handler_) handler_(signal);
    }
    die_by(signal);
  }
}

}  // namespace distbench
