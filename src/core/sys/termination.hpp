// Termination signals (SIGTERM, SIGINT, SIGHUP) handled on a thread of their own, so that a process the launcher
// ends — because another rank failed or timed out, or the user pressed Ctrl-C — can still mark its report failed
// before it goes. Construct it first thing in main, before any other thread exists (MPI's included): the signals are
// blocked in the constructing thread and every thread created after it inherits that; a thread a library started
// before main (OpenBLAS' workers) may still receive one, and a handler there forwards it to the signal thread.
// SIGPIPE is ignored, so that a closed stdout cannot end the process before its report files are written.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

namespace distbench {

class TerminationSignals {
 public:
  // Called on the signal thread with the signal number; it should end the process (std::_Exit). If it returns, or
  // none is set, the process ends as the signal's default action would.
  using Handler = std::function<void(int signal)>;

  TerminationSignals();
  ~TerminationSignals();
  TerminationSignals(const TerminationSignals&) = delete;
  TerminationSignals& operator=(const TerminationSignals&) = delete;

  // Sets (or, with nullptr, clears) the handler; clearing waits for a handler that is running.
  void set_handler(Handler handler);

  // Sets a handler for the lifetime of a scope (the handler usually refers to that scope's objects).
  class Scoped {
   public:
    Scoped(TerminationSignals& signals, Handler handler) : signals_(signals) {
      signals_.set_handler(std::move(handler));
    }
    ~Scoped() { signals_.set_handler(nullptr); }
    Scoped(const Scoped&) = delete;
    Scoped& operator=(const Scoped&) = delete;

   private:
    TerminationSignals& signals_;
  };

 private:
  void watch();

  std::mutex mutex_;
  Handler handler_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// Exit status of a process ended by `signal`, as a shell reports it (128 + signal).
int exit_status_for_signal(int signal);

}  // namespace distbench
