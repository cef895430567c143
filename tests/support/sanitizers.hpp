// Whether a test runs under scripts/sanitize.sh (AddressSanitizer and UndefinedBehaviorSanitizer), which sets
// DISTBENCH_SANITIZERS, as tests/support/distbench_testing.py reads it for the Python tests.
//
// Volume tests (a brute force over many group shapes, a verdict rate over hundreds of Monte Carlo draws, a 64-node
// job) run whole in the plain build, where they check arithmetic and statistics. Under the sanitizers they cost a
// minute of CI and reach no code that their small cases do not: there they run their small cases, or skip saying why.
#pragma once

#include <cstdlib>

namespace distbench::test_support {

inline bool under_sanitizers() {
  const char* value = std::getenv("DISTBENCH_SANITIZERS");
  return value != nullptr && *value != '\0';
}

inline constexpr const char* kVolumeSkip =
    "a volume test: it runs whole in the plain build; under the sanitizers its small cases reach the same code";

}  // namespace distbench::test_support
