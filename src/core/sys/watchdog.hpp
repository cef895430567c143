// Bounds every blocking step: armed around a step with its kind and a description, it calls `on_expire` from its own
// thread when the step outlives the timeout (the callback reports and ends the process; it does not return). The
// callback runs while the main thread may be inside MPI: it must not call MPI (only the main thread does, at any
// --mpi-thread).
//
// A call that waits on other ranks without a deadline of its own (a Connector's barrier, broadcast or gathers; a
// Communicator's blocking collective) takes an ArmedStep: the proof, checked by the compiler, that such a wait runs
// inside an armed step. The forms that take a deadline instead (Connector::*_until, Work::wait) need none.
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
#include <string_view>
#include <thread>

namespace distbench {

// What a step does, for the reports of a step that did not finish and for tools that stop a rank at one kind of
// step (the fault test sets its debugger's breakpoints by these numbers: keep them stable).
enum class StepKind : int {
  setup = 1,          // forming the job: the backend chosen everywhere, communicators, checks, the run's facts
  warm_up = 2,        // untimed calls before the timed ones
  calibration = 3,    // how many operations one sample takes
  sampling = 4,       // the timed samples and the decisions between them
  barrier = 5,        // every rank waits for the others between two steps
  verification = 6,   // the checked call
  check_count = 7,    // counting the wrong elements and agreeing on the count
  gather = 8,         // results gathered to the root
  report = 9,         // the root writes what was measured
  health_phase = 10,  // one phase of `health`
  zero_step = 11,     // a ZeRO optimizer step run outside the sampler (--check, the counters, the results)
  train_step = 12,    // a training step run outside the sampler (overlap modes, ZeRO-3 gathers, the trace)
  tp_step = 13,       // a tensor-parallel operation or layer
  finish = 14,        // the run's end: the verdict every rank leaves with
};
inline constexpr int kStepKinds = 14;

// "verification", "check count", ...
std::string_view step_kind_name(StepKind kind);

class Watchdog;

// An armed step: lives in the scope of the step. Ending it arms again the step that was armed when it began (that
// step's time counts anew from then), or disarms; an overdue step stays as it is. A step left by an exception (a
// bounded wait inside it that timed out) is remembered: Watchdog::unwound_kind().
class ArmedStep {
 public:
  ~ArmedStep();
  ArmedStep(const ArmedStep&) = delete;
  ArmedStep& operator=(const ArmedStep&) = delete;

  StepKind kind() const { return kind_; }

 private:
  friend class Watchdog;
  struct Outer {
    StepKind kind;
    std::string what;
    std::int64_t timeout_ns;
  };
  ArmedStep(Watchdog& watchdog, StepKind kind, std::optional<Outer> outer, bool armed);

  Watchdog& watchdog_;
  StepKind kind_;
  std::optional<Outer> outer_;  // the step armed before this one
  bool armed_;                  // false when an overdue step was armed already (nothing to undo)
  int exceptions_;              // in flight when the step began
};

class Watchdog {
 public:
  using Expired = std::function<void(const std::string& step, StepKind kind, double timeout_s)>;

  Watchdog(double timeout_s, Expired on_expire);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Arms the watchdog for one step (kept out of line: the fault test breaks here, on `kind`). `timeout_s` > 0 bounds
  // this step instead of the watchdog's own timeout: a backstop behind a step's own deadlines, longer than them.
  [[nodiscard]] ArmedStep arm(StepKind kind, const std::string& what, double timeout_s = 0);
  // Cheaper re-arming for tight loops: the step stays what the last arm set.
  void arm_again();
  // Ends the step, unless it is overdue.
  void disarm();
  double timeout_s() const { return timeout_s_; }
  // The step armed now; empty when disarmed.
  std::string step();
  // Its kind; nullopt when disarmed.
  std::optional<StepKind> step_kind();
  // The kind of the innermost step an exception left since the last call that armed a step from nothing (the step
  // a timed-out bounded wait was in, once the error has unwound it); nullopt when none.
  std::optional<StepKind> unwound_kind();
  // That step's description ("allreduce 1 KiB float32 sum in-place: timed samples"); empty when none.
  std::string unwound_step();
  // Whether the armed step has outlived the timeout (its callback may not have run yet: e.g. the process was stopped
  // and has just been continued, and the step may even have finished since).
  bool overdue() const;
  // How long this process was just frozen (stopped by SIGSTOP, its host suspended), when that was longer than the
  // timeout and ended in the last few seconds or lasts still: the watchdog's own thread could not poll for that long.
  // A stop between two steps arms nothing, and is seen only so. Empty otherwise, and with no timeout.
  std::optional<double> frozen_s() const { return frozen_longer_than(timeout_s_); }
  // The same for a freeze longer than `seconds` (at least half a second: shorter ones are not told from a busy host).
  std::optional<double> frozen_longer_than(double seconds) const;

 private:
  friend class ArmedStep;
  void end(ArmedStep& step);
  void watch();
  void rearm(std::int64_t now);

  const double timeout_s_;
  Expired on_expire_;
  std::atomic<std::int64_t> deadline_ns_{0};    // 0: disarmed
  std::atomic<std::int64_t> last_poll_ns_;      // when the watchdog's thread last looked
  std::atomic<std::int64_t> freeze_ns_{0};      // the last gap between its looks longer than half a second
  std::atomic<std::int64_t> freeze_end_ns_{0};  // and when it ended
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string step_;
  StepKind kind_ = StepKind::setup;
  std::atomic<std::int64_t> step_timeout_ns_;  // the armed step's bound
  std::optional<StepKind> unwound_;
  std::string unwound_step_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace distbench
