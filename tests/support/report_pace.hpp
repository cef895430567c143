// Reporters rewrite their file after an add only once the pace allows (core/report/report_output.hpp: at most every
// 20 times what the last rewrite took). Tests that read the file right after an add give the reporter this clock,
// which moves only when told: a rewrite then costs no time on it, and let_the_pace_pass() moves it an hour on, so
// the next add is written whatever the machine's disk is doing.
#pragma once

#include "core/report/report_output.hpp"

#include <chrono>

namespace distbench::test_support {

class PaceClock {
 public:
  ReportOutput::Now now() {
    return [this] { return t_; };
  }
  void let_the_pace_pass() { t_ += std::chrono::hours(1); }
  void advance(ReportOutput::Clock::duration d) { t_ += d; }

 private:
  ReportOutput::Clock::time_point t_{};
};

}  // namespace distbench::test_support
