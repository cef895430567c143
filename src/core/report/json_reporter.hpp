// The JSON report: the whole report is rewritten atomically after begin(), after every add() and at end(), so that
// a run that dies keeps everything measured so far, marked "incomplete".
#pragma once

#include "core/report/reporter.hpp"

#include <mutex>
#include <string>
#include <vector>

namespace distbench {

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(std::string path);

 protected:
  // Each hook locks: end() may come from the watchdog thread while the main thread is blocked in a collective.
  void do_begin(const RunInfo& info, const SweepPlan& plan) override;
  void do_add(const std::vector<CaseResult>& results) override;
  // The first end() is final: later add() and end() calls change nothing (the first verdict names the cause).
  // An end() before begin() writes nothing.
  void do_end(const RunInfo& info) override;

 private:
  void rewrite();  // with mutex_ held

  std::mutex mutex_;
  std::string path_;
  bool begun_ = false;
  bool ended_ = false;
  RunInfo info_;
  SweepPlan plan_;
  std::vector<CaseResult> results_;
};

}  // namespace distbench
