// What `distbench train` runs, settled from the command line before any rank starts.
#pragma once

#include "benchmarks/train/buckets.hpp"
#include "benchmarks/train/data_parallel.hpp"
#include "benchmarks/train/mlp.hpp"
#include "core/comm/bucket_cap.hpp"
#include "core/measure/timer.hpp"
#include "core/report/per_rank.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace distbench::train {

struct TrainPlan {
  MlpShape shape;
  std::size_t batch = 256;  // the global batch: every rank trains on batch / N samples of it
  int steps = 50;           // timed steps (after the warm-up ones)
  int warmup_steps = 3;
  double bucket_mb = kDdpBucketMiB;  // MiB of gradients per bucket; 0: one allreduce per tensor
  std::vector<bool> overlaps = {true, false};
  int zero_stage = 0;  // --zero: 0 (DDP), or ZeRO's partitioning of the update (1), gradients (2), parameters (3)
  int tp_size = 1;     // --tp-size: ranks per tensor-parallel group (consecutive); data parallelism across the groups
  DType wire = DType::float32;  // --dtype: the gradients' type in the collectives (bf16: DDP's compression hook)
  bool check = false;
  Optimizer optimizer;
  double timeout_s = 300.0;
  bool scaling = false;    // --scaling: also one rank alone on a rank's share, and the scaling efficiency
  std::string trace_path;  // --trace: a Chrome trace-event JSON of every timed step (empty: none)
  std::uint64_t seed = 1;
  PerRankOptions per_rank;  // --per-rank, --per-rank-file
};

}  // namespace distbench::train
