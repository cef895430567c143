// What `distbench zero` runs, settled from the command line and --config before any rank starts.
#pragma once

#include "benchmarks/zero/formulas.hpp"
#include "core/comm/bucket_cap.hpp"
#include "core/device/dtype.hpp"
#include "core/measure/stopping.hpp"
#include "core/report/per_rank.hpp"
#include "numerics/adam.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace distbench::zero {

struct ZeroPlan {
  std::vector<Stage> stages;        // in order
  std::size_t params = 0;           // Ψ
  std::vector<std::size_t> layers;  // their sizes (layer_sizes)
  std::string dtype = "bf16";       // as given: bf16, fp16, fp32
  DType type = DType::bfloat16;
  double bucket_mb = kDdpBucketMiB;  // MiB of gradients per bucket (DDP's default); 0: one bucket
  std::size_t bucket = 0;            // the same in elements
  // The forms stage 1 runs in, in order: the seeds' and RAF's allreduce, DeepSpeed's and the paper's
  // reduce-scatter, or both (each a row of its own).
  std::vector<Zero1Reduce> zero1 = {Zero1Reduce::allreduce};
  bool check = false;
  int check_steps = 3;
  numerics::AdamConfig adam;
  int warmup_iters = 2;
  StoppingRule stopping;
  double timeout_s = 300.0;
  bool malloc_reuse = false;  // --malloc-reuse (the runner applies it; the warnings say what it would change)
  std::string config_file;    // --config, if given
  PerRankOptions per_rank;    // --per-rank, --per-rank-file
};

std::string_view name(Stage s);        // "0" .. "3"
std::string_view name(Zero1Reduce z);  // "allreduce", "reduce-scatter"

// One stage as it runs: stage 1 in one of the plan's forms (the other stages' form is unused).
struct StageRun {
  Stage stage;
  Zero1Reduce zero1;
};
// The plan's runs in order: each stage once, stage 1 once per form.
std::vector<StageRun> stage_runs(const ZeroPlan& plan);

}  // namespace distbench::zero
