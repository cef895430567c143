// What the operating system did to the measuring thread while it ran the timed samples: page faults and context
// switches (getrusage over RUSAGE_THREAD, so the watchdog's and other threads' activity is not counted). A cliff in
// the timings that no tool explains is often page faults inside the library call: these counters say so.
#pragma once

namespace distbench {

struct OsCounters {
  double minor_faults = 0;          // page faults served without I/O (e.g. first touch of freshly mapped memory)
  double major_faults = 0;          // page faults that needed I/O
  double voluntary_switches = 0;    // the thread blocked (waited) and gave up the CPU
  double involuntary_switches = 0;  // the thread was preempted

  double faults() const { return minor_faults + major_faults; }
  double switches() const { return voluntary_switches + involuntary_switches; }
};

// The calling thread's counters since it started.
OsCounters thread_os_counters();
// (after - before) / operations; all zeros for no operations.
OsCounters per_operation(const OsCounters& before, const OsCounters& after, double operations);

// Whether page faults per operation are high enough to shape a case's time: at least one per operation and at least
// one per MiB of message (a whole-buffer temporary faulted in afresh costs one per 4 KiB page).
bool faults_shape_time(double faults_per_op, double message_bytes);

}  // namespace distbench
