// The options of `distbench <collective>`, as typed, and their translation into a validated SweepPlan.
#pragma once

#include "benchmarks/collective/plan.hpp"
#include "cli/common_options.hpp"
#include "cli/per_rank_options.hpp"

#include <optional>
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
  int check = 1;          // -c: verifications per case (nccl-tests' check iteration count); 0: none
  int cycles = 1;         // -N: sweeps (nccl-tests' run cycles)
  int timestamps = 0;     // -S: 0/1 (nccl-tests' report_timestamps)
  int cpu_time = 0;       // -C: 0/1 (nccl-tests' report_cputime)
  // -I: 0/1, nccl-tests' per-iteration statistics in its JSON; -K: the samples they leave out (per_iter_skip)
  int per_iter_timing = 0;
  int per_iter_skip = 0;
  std::vector<std::string> timings = {"auto"};  // --timing: auto, or a list of sampled, nccl-tests, osu, imb
  int blocks = 0;  // --blocks: nccl-tests' timing's timed blocks per case (0: the sampling rule)
  std::vector<std::string> datatypes = {"float32"};
  std::vector<std::string> ops = {"sum"};
  int root = 0;  // -1: every rank in turn
  std::string average = "avg";
  int group_size = 0;
  std::string placement = "both";
  int tensors = 1;                   // --tensors: all-reduce a list of this many tensors per operation
  std::string fuse = "both";         // --fuse: on (fused), off (per tensor) or both
  std::vector<std::string> columns;  // --columns: median, p99, noise, samples or all
  double min_busbw = 0;              // GB/s; 0: no floor
  double min_algbw = 0;
  std::string min_busbw_at;  // a size: judge the lowest result at sizes >= it instead of the average
  bool stepfactor_given = false;
  bool stepbytes_given = false;
  bool ops_given = false;
  bool root_given = false;
  bool fuse_given = false;
  int nthreads = 1;       // -t: nccl-tests' threads per process; 1 is the only value here
  int parallel_init = 0;  // -p: nccl-tests' parallel initialisation of its threads (warned as ignored)
  bool parallel_init_given = false;
  SamplingOptions sampling;
  CommonOptions common;
  PerRankOptions per_rank;  // --per-rank, --per-rank-file
};

// Adds the option groups (sampling, the sweep's loop, every run's) and the sweep's to the subcommand of `collective`,
// in their help groups; options that do not apply to it (-o where nothing is reduced, -r where there is no root,
// --tensors and --fuse but on allreduce) and nccl-tests' -t and -p are accepted but not shown (make_plan warns about or
// refuses them). Without a collective, every option is shown.
void add_collective_options(CLI::App& app, CollectiveOptions& options,
                            std::optional<Collective> collective = std::nullopt);
// Throws usage_error for anything inconsistent (sizes, steps, dtypes, ops and their combination).
collective::SweepPlan make_plan(Collective collective, const CollectiveOptions& options);
// The common options as the collective runs them: --alloc auto becomes ncclMemAlloc where nccl-tests' timing may
// apply (not --timing sampled, not a --tensors list), so that the buffers are what all_reduce_perf allocates.
CommonOptions collective_common(const CollectiveOptions& options);

}  // namespace distbench::cli
