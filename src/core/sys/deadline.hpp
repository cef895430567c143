// A deadline some seconds from now that never overflows the clock: any -T a user gives (1e10, 1e300) is a finite
// time point, at most about a century away. Every conversion of a timeout in seconds to a clock goes through here.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace distbench {

inline constexpr double kMaxTimeoutSeconds = 3.0e9;  // ~95 years, far inside the clock's 292-year range of ns

// `seconds` clamped to [0, kMaxTimeoutSeconds]; NaN reads as 0.
inline double saturated_seconds(double seconds) { return seconds > 0 ? std::min(seconds, kMaxTimeoutSeconds) : 0.0; }

// `seconds` in nanoseconds, saturated: at most 3e18, which a steady_clock reading in nanoseconds can be added to.
inline std::int64_t timeout_nanoseconds(double seconds) {
  return static_cast<std::int64_t>(saturated_seconds(seconds) * 1e9);
}

inline std::chrono::steady_clock::time_point deadline_after(double seconds) {
  return std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout_nanoseconds(seconds));
}

}  // namespace distbench
