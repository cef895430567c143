// What nccl-tests' text and JSON outputs share once read: a row of the results table (one size, type, operator and
// root) timed out of place and in place, made into the history's cases. The facts of the format come from nccl-tests'
// writer (src/common.cu, src/util.cu); its time is the mean over one timed block of iterations, so a point of it has
// no samples and no interval, unless -J's per-iteration statistics give the median (p50_us) and the times.
#pragma once

#include "history/history_db.hpp"
#include "history/ingest.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::history {

// One placement of one row.
struct NcclTiming {
  bool present = false;  // out of place is absent in a trace replay's rows
  double time_us = kNotMeasured, algbw_gbps = kNotMeasured, busbw_gbps = kNotMeasured, wrong = kNotMeasured;
  double p50_us = kNotMeasured;      // -J with per-iteration timing (-I): the iterations' median
  std::vector<double> iteration_us;  // and each iteration's time (the skipped ones left out)
};

struct NcclRow {
  std::int64_t bytes = 0, count = 0;
  std::string type, redop;
  std::int64_t root = -1;
  NcclTiming out_of_place, in_place;
};

// The program's name as nccl-tests prints it ("all_reduce_perf", or a path to it) as distbench names the
// collective ("allreduce"); "" when it names none.
std::string collective_of_program(std::string_view program);

// The run's cases from its rows: two per row (out-of-place and in-place); a row repeated (-N cycles) is one case,
// its time the median of the repeats. `machine` and `world` name the group.
std::vector<CaseFigures> nccl_cases(const std::vector<NcclRow>& rows, const std::string& collective,
                                    const std::string& machine, int world, const std::string& file);

}  // namespace distbench::history
