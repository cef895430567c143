#include "core/sys/watchdog.hpp"

#include "core/sys/deadline.hpp"

#include <chrono>
#include <exception>

namespace distbench {
namespace {

// How recently a freeze must have ended to explain what happens now (a signal the launcher sends on resuming it).
constexpr std::int64_t kRecentFreezeNs = 5'000'000'000;
// The shortest gap between the watchdog's looks taken for a freeze (it looks every 20 or 100 ms).
constexpr std::int64_t kMinFreezeNs = 500'000'000;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Watchdog::Watchdog(double timeout_s, Expired on_expire)
    : timeout_s_(timeout_s),
      on_expire_(std::move(on_expire)),
      last_poll_ns_(now_ns()),
      step_timeout_ns_(timeout_nanoseconds(timeout_s)),
      thread_([this] { watch(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::string_view step_kind_name(StepKind kind) {
  switch (kind) {
    case StepKind::setup: return "setup";
    case StepKind::warm_up: return "warm-up";
    case StepKind::calibration: return "calibration";
    case StepKind::sampling: return "sampling";
    case StepKind::barrier: return "barrier";
    case StepKind::verification: return "verification";
    case StepKind::check_count: return "check count";
    case StepKind::gather: return "gather";
    case StepKind::report: return "report";
    case StepKind::health_phase: return "health phase";
    case StepKind::zero_step: return "zero step";
    case StepKind::train_step: return "train step";
    case StepKind::tp_step: return "tp step";
    case StepKind::finish: return "finish";
  }
  return "step";
}

ArmedStep::ArmedStep(Watchdog& watchdog, StepKind kind, std::optional<Outer> outer, bool armed)
    : watchdog_(watchdog),
      kind_(kind),
      outer_(std::move(outer)),
      armed_(armed),
      exceptions_(std::uncaught_exceptions()) {}

ArmedStep::~ArmedStep() {
  if (std::uncaught_exceptions() > exceptions_) {
    std::lock_guard lock(watchdog_.mutex_);
    if (!watchdog_.unwound_) {  // the innermost: the first to unwind
      watchdog_.unwound_ = kind_;
      watchdog_.unwound_step_ = watchdog_.step_;
    }
  }
  if (armed_) watchdog_.end(*this);
}

ArmedStep Watchdog::arm(StepKind kind, const std::string& what, double timeout_s) {
  if (overdue()) return ArmedStep(*this, kind, std::nullopt, false);
  std::optional<ArmedStep::Outer> outer;
  {
    std::lock_guard lock(mutex_);
    if (deadline_ns_.load(std::memory_order_relaxed) != 0) {
      outer = ArmedStep::Outer{kind_, step_, step_timeout_ns_.load(std::memory_order_relaxed)};
    } else {
      unwound_.reset();
      unwound_step_.clear();
    }
    step_ = what;
    kind_ = kind;
    step_timeout_ns_.store(timeout_nanoseconds(timeout_s > 0 ? timeout_s : timeout_s_), std::memory_order_relaxed);
    rearm(now_ns());
  }
  return ArmedStep(*this, kind, std::move(outer), true);
}

// The step armed before `step` is armed again, its time counted from now; none was: disarmed.
void Watchdog::end(ArmedStep& step) {
  if (overdue()) return;
  if (!step.outer_) {
    deadline_ns_.store(0, std::memory_order_relaxed);
    return;
  }
  std::lock_guard lock(mutex_);
  step_ = std::move(step.outer_->what);
  kind_ = step.outer_->kind;
  step_timeout_ns_.store(step.outer_->timeout_ns, std::memory_order_relaxed);
  rearm(now_ns());
}

std::optional<StepKind> Watchdog::unwound_kind() {
  std::lock_guard lock(mutex_);
  return unwound_;
}

std::string Watchdog::unwound_step() {
  std::lock_guard lock(mutex_);
  return unwound_step_;
}

void Watchdog::arm_again() { rearm(now_ns()); }

// The deadline moves only while the armed step (if any) is within it. Only the thread that arms writes it.
void Watchdog::rearm(std::int64_t now) {
  const std::int64_t deadline = deadline_ns_.load(std::memory_order_relaxed);
  if (deadline != 0 && now > deadline) return;
  deadline_ns_.store(now + step_timeout_ns_.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

std::string Watchdog::step() {
  std::lock_guard lock(mutex_);
  return deadline_ns_.load(std::memory_order_relaxed) != 0 ? step_ : std::string();
}

std::optional<StepKind> Watchdog::step_kind() {
  std::lock_guard lock(mutex_);
  if (deadline_ns_.load(std::memory_order_relaxed) == 0) return std::nullopt;
  return kind_;
}

bool Watchdog::overdue() const {
  const std::int64_t deadline = deadline_ns_.load(std::memory_order_relaxed);
  return deadline != 0 && now_ns() > deadline;
}

std::optional<double> Watchdog::frozen_longer_than(double seconds) const {
  const std::int64_t limit = std::max(timeout_nanoseconds(seconds), kMinFreezeNs);
  if (timeout_nanoseconds(timeout_s_) <= 0) return std::nullopt;
  const std::int64_t now = now_ns();
  const std::int64_t gap = now - last_poll_ns_.load(std::memory_order_relaxed);
  if (gap > limit) return static_cast<double>(gap) * 1e-9;  // frozen until just now: the thread has not looked yet
  const std::int64_t freeze = freeze_ns_.load(std::memory_order_relaxed);
  if (freeze > limit && now - freeze_end_ns_.load(std::memory_order_relaxed) < kRecentFreezeNs) {
    return static_cast<double>(freeze) * 1e-9;
  }
  return std::nullopt;
}

void Watchdog::disarm() {
  if (!overdue()) deadline_ns_.store(0, std::memory_order_relaxed);
}

void Watchdog::watch() {
  // Polls a few times per second at most; a step's deadline is checked against the clock, so the watchdog fires
  // within one polling interval of the timeout.
  const auto interval = std::chrono::milliseconds(timeout_s_ < 2.0 ? 20 : 100);
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, interval);
    if (stopping_) break;
    const std::int64_t now = now_ns();
    const std::int64_t gap = now - last_poll_ns_.load(std::memory_order_relaxed);
    // A longer freeze that ended recently is not hidden by a shorter one after it.
    const bool recent = now - freeze_end_ns_.load(std::memory_order_relaxed) < kRecentFreezeNs;
    if (gap > kMinFreezeNs && (gap >= freeze_ns_.load(std::memory_order_relaxed) || !recent)) {
      freeze_ns_.store(gap, std::memory_order_relaxed);
      freeze_end_ns_.store(now, std::memory_order_relaxed);
    }
    last_poll_ns_.store(now, std::memory_order_relaxed);
    const std::int64_t deadline = deadline_ns_.load(std::memory_order_relaxed);
    if (deadline != 0 && now > deadline) {
      const std::string step = step_;
      const StepKind kind = kind_;
      lock.unlock();
      on_expire_(step, kind, timeout_s_);
      return;
    }
  }
}

}  // namespace distbench
