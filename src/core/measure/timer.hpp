// Timers: a stretch of work timed where it runs. Communicators make them for their calls (host clock, or events on
// a GPU stream); a Device makes them for compute-only phases (the host clock, since a Device's operations complete
// before they return).
#pragma once

#include <chrono>
#include <functional>
#include <utility>

namespace distbench {

using Seconds = std::chrono::duration<double>;

class Timer {
 public:
  virtual ~Timer() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  // Seconds between start() and stop(); valid once what ran in between has completed.
  virtual double seconds() = 0;
};

// The monotonic host clock.
class HostTimer final : public Timer {
 public:
  void start() override { start_ = std::chrono::steady_clock::now(); }
  void stop() override { stop_ = std::chrono::steady_clock::now(); }
  double seconds() override { return std::chrono::duration<double>(stop_ - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_, stop_;
};

// The host clock around enqueued work and its completion (nccl-tests' timing): stop() first waits for everything
// enqueued since start() through `finish`, then reads the clock.
class HostThroughCompletionTimer final : public Timer {
 public:
  explicit HostThroughCompletionTimer(std::function<void()> finish) : finish_(std::move(finish)) {}
  void start() override { start_ = std::chrono::steady_clock::now(); }
  void stop() override {
    finish_();
    stop_ = std::chrono::steady_clock::now();
  }
  double seconds() override { return std::chrono::duration<double>(stop_ - start_).count(); }

 private:
  std::function<void()> finish_;
  std::chrono::steady_clock::time_point start_, stop_;
};

}  // namespace distbench
