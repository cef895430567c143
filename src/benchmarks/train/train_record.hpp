// One train mode's record (overlap on or off), built on the root from what every rank measured in that mode.
#pragma once

#include "benchmarks/train/plan.hpp"
#include "core/benchmark.hpp"
#include "core/report/record.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::train {

// What one mode measured, gathered on the root: per rank, per timed step (seconds).
struct ModeResult {
  bool overlap = false;
  std::string backend;
  std::int64_t parameters = 0;
  std::int64_t buckets = 0;
  int replicas_per_group = 1;  // ranks in the data-parallel group: 1 means nothing to communicate
  std::vector<std::vector<double>> step_by_rank, compute_by_rank, comm_by_rank, wait_by_rank;
  double loss_first = 0, loss_last = 0;  // means over ranks
  double max_rel_diff = kNotMeasured;    // --check: against one rank on the global batches
  std::int64_t wrong = -1;               // --check: -1 when not checked
  double one_rank_throughput = kNotMeasured;  // --scaling: samples per second of one rank alone
  std::vector<std::string> hosts;             // per rank
};

// The record of one mode; a figure out of its range adds its warning to `warnings`.
Record train_record(const TrainPlan& plan, const ModeResult& m, std::vector<Warning>& warnings);

}  // namespace distbench::train
