#include "core/watchdog.hpp"

#include "core/deadline.hpp"
#include <chrono>

namespace distbench {
namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Watchdog::Watchdog(double timeout_s, Expired on_expire)
    : timeout_s_(timeout_s), on_expire_(std::move(on_expire)), thread_([this] { watch(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

Watchdog::Guard Watchdog::arm(const std::string& step) {
  if (!overdue()) {
    std::lock_guard lock(mutex_);
    step_ = step;
    rearm(now_ns());
  }
  return Guard(*this);
}

void Watchdog::arm_again() { rearm(now_ns()); }

// The deadline moves only while the armed step (if any) is within it. Only the thread that arms writes it.
void Watchdog::rearm(std::int64_t now) {
  const std::int64_t deadline = deadline_ns_.load(std::memory_order_relaxed);
  if (deadline != 0 && now > deadline) return;
  deadline_ns_.store(now + timeout_nanoseconds(timeout_s_), std::memory_order_relaxed);
}

std::string Watchdog::step() {
  std::lock_guard lock(mutex_);
  return deadline_ns_.load(std::memory_order_relaxed) != 0 ? step_ : std::string();
}

bool Watchdog::overdue() const {
  const std::int64_t deadline = deadline_ns_.load(std::memory_order_relaxed);
  return deadline != 0 && now_ns() > deadline;
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
    const std::int64_t deadline = deadline_ns_.load(std::memory_order_relaxed);
    if (deadline != 0 && now_ns() > deadline) {
      const std::string step = step_;
      lock.unlock();
      on_expire_(step, timeout_s_);
      return;
    }
  }
}

}  // namespace distbench
