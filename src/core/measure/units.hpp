// Factors between the units reports use: seconds to ms and µs, bytes to decimal MB. One definition for every file.
#pragma once

namespace distbench {

inline constexpr double kMilli = 1e3;  // milliseconds per second
inline constexpr double kMicro = 1e6;  // microseconds per second
inline constexpr double kMega = 1e6;   // bytes per (decimal) megabyte

}  // namespace distbench
