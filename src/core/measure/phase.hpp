// One timed phase of a record: its samples, their summary and the spread of each rank's mean over the ranks
// (core/report/record.hpp holds a record's phases; phase_stats.hpp makes them from the ranks' samples).
#pragma once

#include "core/measure/stats.hpp"

#include <string>
#include <vector>

namespace distbench {

// Per-rank spread of one figure: min / avg / max over ranks, and the root rank's own value.
struct RankSpread {
  double min = 0, avg = 0, max = 0, rank0 = 0;
};

// One timed phase of a sample ("time" when the operation has one phase).
struct PhaseStats {
  std::string name;
  std::vector<double> samples;  // seconds per operation, one per sample (the -a aggregation across ranks)
  Summary summary;              // over `samples`
  RankSpread rank_spread;       // each rank's mean seconds per operation, spread over ranks
};

}  // namespace distbench
