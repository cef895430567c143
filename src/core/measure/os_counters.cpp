#include "core/measure/os_counters.hpp"

#include <sys/resource.h>

#include <algorithm>

namespace distbench {

OsCounters thread_os_counters() {
  rusage usage{};
  if (getrusage(RUSAGE_THREAD, &usage) != 0) return {};
  return {static_cast<double>(usage.ru_minflt), static_cast<double>(usage.ru_majflt),
          static_cast<double>(usage.ru_nvcsw), static_cast<double>(usage.ru_nivcsw)};
}

OsCounters per_operation(const OsCounters& before, const OsCounters& after, double operations) {
  if (operations <= 0) return {};
  return {(after.minor_faults - before.minor_faults) / operations,
          (after.major_faults - before.major_faults) / operations,
          (after.voluntary_switches - before.voluntary_switches) / operations,
          (after.involuntary_switches - before.involuntary_switches) / operations};
}

bool faults_shape_time(double faults_per_op, double message_bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  return faults_per_op >= std::max(1.0, message_bytes / kMiB);
}

}  // namespace distbench
