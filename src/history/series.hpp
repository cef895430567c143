// A series of the history: one case (its parameters) on one kind of machine and configuration, with one point per run
// that measured it, oldest first. The database (history/history_db.hpp) builds series from the runs it holds; the
// check (history/history_check.hpp) finds where each one changed.
#pragma once

#include "core/report/record.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace distbench::history {

// One run's figures for one case.
struct Point {
  std::int64_t run = 0;           // the run's id in the database (ingest order: a later run has a larger id)
  std::string run_label;          // what the run was (--label, or the commit, or the file's name)
  std::string time;               // when it ran: its report's start time, ISO 8601 UTC
  double time_us = kNotMeasured;  // the case's median time per operation in that run (microseconds)
  double time_low_us = kNotMeasured, time_high_us = kNotMeasured;  // the median's confidence interval, when known
  double busbw_gbps = kNotMeasured, algbw_gbps = kNotMeasured;     // kNotMeasured where the case has none
  std::size_t samples = 0;                                         // the samples behind the median (0: unknown)
  double wrong = kNotMeasured;  // wrong elements the run counted in this case; kNotMeasured when not checked
};

struct Series {
  std::string key;    // stable identity: the group and the case's parameters
  std::string group;  // what must match for runs to be comparable: machine, benchmark, backend, world size, timing
  std::string label;  // the case as a reader names it: "allreduce 1 MiB float32 sum out-of-place"
  std::vector<Param> params;  // the case's parameters, in the benchmark's order
  std::vector<Point> points;  // oldest first
};

}  // namespace distbench::history
