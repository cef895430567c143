#include "core/sys/termination.hpp"

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

// A thread that a library started before main (OpenBLAS starts its workers as it loads) has the termination signals
// unblocked, so the kernel may deliver one there. This handler, which runs only in such a thread, sends the signal on
// to the watching thread, where sigwait takes it. A signal handler has no context argument: the watching thread is
// kept here, written once before the handler is installed.
pthread_t watcher_thread;

extern "C" void forward_to_watcher(int signal) { pthread_kill(watcher_thread, signal); }

void set_disposition(void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART;
  sigfillset(&action.sa_mask);
  for (int signal : {SIGTERM, SIGINT, SIGHUP}) sigaction(signal, &action, nullptr);
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
  watcher_thread = thread_.native_handle();
  set_disposition(forward_to_watcher);
}

TerminationSignals::~TerminationSignals() {
  set_disposition(SIG_DFL);
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
