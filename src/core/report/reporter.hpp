// Reporters format results; they never measure. The public entry points are non-virtual and call protected
// hooks, so that what every reporter needs (ordering checks, flushing) lives in one place (nvbench's printer_base).
#pragma once

#include "core/plan.hpp"
#include "core/error.hpp"
#include "core/results.hpp"

#include <memory>
#include <mutex>
#include <vector>

namespace distbench {

class Reporter {
 public:
  virtual ~Reporter() = default;

  // The lifecycle, the same for every reporter, under one lock (end() may come from the watchdog or signal thread
  // while the main thread is adding): begin once, then add, then end; the first end() is final, later add() and
  // end() calls change nothing (the first verdict names the cause); an end() before begin() writes nothing; an add()
  // before begin() is a programming error.
  void begin(const RunInfo& info, const SweepPlan& plan) {
    std::lock_guard lock(mutex_);
    begun_ = true;
    ended_ = false;
    do_begin(info, plan);
  }
  // After each completed row: the placements measured for one (dtype, op, size), in plan order.
  void add(const std::vector<CaseResult>& results) {
    std::lock_guard lock(mutex_);
    if (ended_) return;
    if (!begun_) throw failure("internal error: a reporter was given results before begin()");
    do_add(results);
  }
  // Once, at the end, or when the run fails (info.status tells which).
  void end(const RunInfo& info) {
    std::lock_guard lock(mutex_);
    if (ended_ || !begun_) return;
    ended_ = true;
    do_end(info);
  }

 protected:
  // Called with the lock held, in lifecycle order only.
  virtual void do_begin(const RunInfo& info, const SweepPlan& plan) = 0;
  virtual void do_add(const std::vector<CaseResult>& results) = 0;
  virtual void do_end(const RunInfo& info) = 0;

 private:
  std::mutex mutex_;
  bool begun_ = false;
  bool ended_ = false;
};

// Feeds several reporters at once.
class ReporterSet final : public Reporter {
 public:
  void push(std::unique_ptr<Reporter> r) { reporters_.push_back(std::move(r)); }

 protected:
  void do_begin(const RunInfo& info, const SweepPlan& plan) override {
    for (auto& r : reporters_) r->begin(info, plan);
  }
  void do_add(const std::vector<CaseResult>& results) override {
    for (auto& r : reporters_) r->add(results);
  }
  void do_end(const RunInfo& info) override {
    for (auto& r : reporters_) r->end(info);
  }

 private:
  std::vector<std::unique_ptr<Reporter>> reporters_;
};

}  // namespace distbench
