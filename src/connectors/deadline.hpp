// A deadline some seconds from now that never overflows the clock: any -T a user gives (1e10, 1e300) is a finite
// time point, at most about a century away.
#pragma once

#include <algorithm>
#include <chrono>

namespace distbench {

inline std::chrono::steady_clock::time_point deadline_after(double seconds) {
  constexpr double kMaxSeconds = 3.0e9;  // ~95 years, far inside the clock's 292-year range of nanoseconds
  const double s = seconds > 0 ? std::min(seconds, kMaxSeconds) : 0.0;  // NaN: 0
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace distbench
