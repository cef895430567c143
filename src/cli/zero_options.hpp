// `distbench zero`'s options, and the plan they make with a --config file (the seeds' names zero_opt_level and
// enable_data_parallel, and the options' own names): unit-tested without ranks.
#pragma once

#include "benchmarks/zero/plan.hpp"
#include "cli/common_options.hpp"
#include "cli/per_rank_options.hpp"
#include "core/comm/bucket_cap.hpp"

#include <set>
#include <string>

namespace distbench::cli {

struct ZeroOptions {
  std::string stage = "all";
  std::string params = "8M";
  std::size_t layers = 24;
  std::string dtype = "bf16";
  double bucket_mb = kDdpBucketMiB;
  std::string zero1_reduce = "auto";
  bool check = false;
  int check_steps = 3;
  std::string config;
  std::set<std::string> given;  // options given on the command line (they win over --config)
  SamplingOptions sampling;
  CommonOptions common;
  PerRankOptions per_rank;  // --per-rank, --per-rank-file
};

// The plan from the options and, when --config names one, the text of that file (JSON). Throws usage_error for
// anything a rank need not see: a stage outside 0-3, Ψ of 0, more layers than parameters, an unknown dtype, a
// config that is not JSON, names an unknown key or gives a value of the wrong kind.
zero::ZeroPlan make_zero_plan(const ZeroOptions& options, const std::string& config_text = "");

}  // namespace distbench::cli
