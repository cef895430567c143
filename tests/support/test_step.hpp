// The proof the blocking calls of a Connector or a Communicator take that a watchdog step is armed
// (core/sys/watchdog.hpp), for tests: one step of a watchdog that lasts the test program. A call that hangs past
// its timeout (longer than any suite's) ends the program with one line that says so.
#pragma once

#include "core/sys/watchdog.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace distbench {

// The watchdog of the test program, for code that arms steps of its own.
inline Watchdog& test_watchdog() {
  static Watchdog watchdog(900.0, [](const std::string& step, StepKind, double timeout_s) {
    std::fprintf(stderr, "error: %s did not finish within %g s\n", step.c_str(), timeout_s);
    std::fflush(stderr);
    std::_Exit(1);
  });
  return watchdog;
}

inline const ArmedStep& test_step() {
  static const ArmedStep step = test_watchdog().arm(StepKind::setup, "a test's blocking calls");
  return step;
}

}  // namespace distbench
