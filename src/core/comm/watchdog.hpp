// Bounds every blocking step: armed around a step with a description, it calls `on_expire` from its own thread
// when the step outlives the timeout (the callback reports and ends the process; it does not return). The callback
// runs while the main thread may be inside MPI: it must not call MPI (only the main thread does, at any --mpi-thread).
//
// A step that has outlived its timeout stays overdue until the callback runs: re-arming, arming the next step or
// disarming does not hide it. A process stopped mid-step (SIGSTOP, a frozen host) and continued may finish the step
// before the watchdog's thread looks again; the step still did not finish within the timeout.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace distbench {

class Watchdog {
 public:
  using Expired = std::function<void(const std::string& step, double timeout_s)>;

  Watchdog(double timeout_s, Expired on_expire);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Arms the watchdog for one step; disarms when the returned guard goes out of scope. An overdue step stays armed.
  class Guard {
   public:
    explicit Guard(Watchdog& w) : w_(w) {}
    ~Guard() { w_.disarm(); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    Watchdog& w_;
  };
  [[nodiscard]] Guard arm(const std::string& step);
  // Cheaper re-arming for tight loops: the step description stays what the last arm(step) set.
  void arm_again();
  // Ends the step, unless it is overdue.
  void disarm();
  double timeout_s() const { return timeout_s_; }
  // The step armed now; empty when disarmed.
  std::string step();
  // Whether the armed step has outlived the timeout (its callback may not have run yet: e.g. the process was stopped
  // and has just been continued, and the step may even have finished since).
  bool overdue() const;
  // How long this process was just frozen (stopped by SIGSTOP, its host suspended), when that was longer than the
  // timeout and ended in the last few seconds or lasts still: the watchdog's own thread could not poll for that long.
  // A stop between two steps arms nothing, and is seen only so. Empty otherwise, and with no timeout.
  std::optional<double> frozen_s() const;

 private:
  void watch();
  void rearm(std::int64_t now);

  const double timeout_s_;
  Expired on_expire_;
  std::atomic<std::int64_t> deadline_ns_{0};  // 0: disarmed
  std::atomic<std::int64_t> last_poll_ns_;     // when the watchdog's thread last looked
  std::atomic<std::int64_t> freeze_ns_{0};     // the last gap between its looks longer than the timeout
  std::atomic<std::int64_t> freeze_end_ns_{0};  // and when it ended
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string step_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace distbench
