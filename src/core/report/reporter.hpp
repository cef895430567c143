// Reporters format results; they never measure. The public entry points are non-virtual and call protected
// hooks, so that what every reporter needs (ordering checks, flushing) lives in one place (nvbench's printer_base).
#pragma once

#include "core/plan.hpp"
#include "core/results.hpp"

#include <memory>
#include <vector>

namespace distbench {

class Reporter {
 public:
  virtual ~Reporter() = default;

  // Once, before the first result.
  void begin(const RunInfo& info, const SweepPlan& plan) { do_begin(info, plan); }
  // After each completed row: the placements measured for one (dtype, op, size), in plan order.
  void add(const std::vector<CaseResult>& results) { do_add(results); }
  // Once, at the end, or when the run fails (info.status tells which).
  void end(const RunInfo& info) { do_end(info); }

 protected:
  virtual void do_begin(const RunInfo& info, const SweepPlan& plan) = 0;
  virtual void do_add(const std::vector<CaseResult>& results) = 0;
  virtual void do_end(const RunInfo& info) = 0;
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
