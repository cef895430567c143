// The rules a collective sweep's plan obeys, next to the benchmark they are about: its sizes, types and operators, a
// list of tensors, the timing methods and the options each takes, floors, columns, cycles. The command line
// (cli/collective_options.cpp) reads its options into a SweepPlan through these, in the order declared here; each
// throws usage_error saying what to do instead.
#pragma once

#include "benchmarks/collective/plan.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::collective {

// -b, -e, -f, -i as typed.
struct SizeSpec {
  std::string_view min_text, max_text;
  double factor = 2.0;
  bool factor_given = false;
  std::optional<std::string_view> step_text;  // -i: additive steps
};
// The sizes of the sweep: one kind of step (a factor over 1, or a positive step), smallest to largest.
std::vector<std::uint64_t> sweep_sizes(const SizeSpec& spec);

// An operator asked for by name must be defined for every type asked for by name ('all' keeps what fits: the caller
// skips this check then).
void check_ops_defined(const std::vector<ReduceOp>& ops, const std::vector<DType>& dtypes);

// --tensors N (N > 1) on a plan whose collective, sizes, types and placements are set: allreduce only, in place, each
// tensor an element at least of the largest size; the plan then reduces a list each way of `fusions`.
void set_tensor_list(SweepPlan& plan, int tensors, std::vector<Fusion> fusions);

// --timing as the plan's methods: one, or a list without repeats in which 'auto' has no place.
std::vector<Timing> parse_timings(const std::vector<std::string>& names);

// The warm-up the methods take unless -w is given: all_reduce_perf's 1 for nccl-tests' timing alone.
int default_warmup(const std::vector<Timing>& timings, int warmup);

// --blocks N: exactly N timed blocks per case, for a method that counts blocks (nccl-tests, or auto that may be it).
void check_blocks(const std::vector<Timing>& timings, const std::vector<std::string>& names);
StoppingRule exact_blocks(int blocks);

// A --tensors list is timed by the methods that time lists (sampled): the plan's timing becomes that.
void check_list_timing(SweepPlan& plan, const std::vector<std::string>& names);

// --min-busbw-at judges a floor: one must be given.
void check_floor_at(const BandwidthFloor& floor);

// --columns: the statistics columns asked for, in order, without repeats ('all': every one).
std::vector<std::string> table_columns(const std::vector<std::string>& asked);

// -N: a count of sweeps, not nccl-tests' 0 (run forever).
void check_cycles(int cycles);

// Options given that mean nothing for this sweep: each one's warning (the run goes on).
struct GivenOptions {
  std::optional<std::string> ops;   // -o as typed
  std::optional<int> root;          // -r
  bool parallel_init = false;       // nccl-tests' -p
  bool noise_target = false;        // --max-noise or --max-time
  std::optional<std::string> fuse;  // --fuse as typed
};
std::vector<Warning> ignored_options(const SweepPlan& plan, const GivenOptions& given);

}  // namespace distbench::collective
