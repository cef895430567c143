// The options of `distbench <collective>`, as typed, and their translation into a validated SweepPlan.
#pragma once

#include "core/plan.hpp"

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace distbench::cli {

struct CollectiveOptions {
  std::string minbytes = "8";
  std::string maxbytes = "64M";
  double stepfactor = 2.0;
  std::string stepbytes;  // empty: multiplicative steps
  int iters = 20;
  int warmup_iters = 5;
  int check = 1;
  std::vector<std::string> datatypes = {"float32"};
  std::vector<std::string> ops = {"sum"};
  int root = 0;
  std::string average = "avg";
  double timeout_s = 300.0;
  int group_size = 0;
  std::string placement = "both";
  std::string json;
  std::string csv;
  double max_noise = 0.0;
  int min_samples = 10;
  double max_time_s = 0.05;  // count mode's budget; 10 s in noise mode unless given
  bool show_faults = false;
  bool malloc_reuse = false;
  std::string backend = "auto";
  int gpus = 1;
  int agg_iters = 1;
  int graph_launches = 0;
  int blocking = 0;
  int register_buffers = 0;
  bool stepfactor_given = false;
  bool stepbytes_given = false;
  bool iters_given = false;
  bool max_time_given = false;
};

// Adds the options to a collective's subcommand.
void add_collective_options(CLI::App& app, CollectiveOptions& options);
// Throws usage_error for anything inconsistent (sizes, steps, dtypes, ops and their combination).
SweepPlan make_plan(Collective collective, const CollectiveOptions& options);

}  // namespace distbench::cli
