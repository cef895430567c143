// The collective sweep: every (dtype, op, size, placement) case of a plan, measured, verified, reduced across
// ranks and handed to the caller row by row. It never prints: progress and warnings go back to the caller.
#pragma once

#include "benchmarks/collective/case_result.hpp"
#include "benchmarks/collective/plan.hpp"
#include "core/benchmark.hpp"
#include "core/comm/world.hpp"
#include "core/device/memory_budget.hpp"
#include "core/sys/watchdog.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace distbench::collective {

struct SweepOutcome {
  std::int64_t wrong = 0;           // summed over every checked case and rank
  std::vector<CaseResult> results;  // root rank only
  std::vector<Warning> warnings;    // root rank only: what the user should know, and what to do about it
  KeyValues facts;                  // root rank only: the buffers' huge pages (core/comm/buffer_pages.hpp)
};

// Called on the root rank after each row: the placements measured for one (dtype, op, size), in plan order.
using RowFn = std::function<void(const std::vector<CaseResult>& row)>;

// Collective over the whole world; `on_row` and `progress` are called on the root rank only.
SweepOutcome run_sweep(World& world, const SweepPlan& plan, Watchdog& watchdog, const RowFn& on_row,
                       const ProgressFn& progress);

// The groups the plan runs in: the world, or consecutive groups of --group-size (usage_error if it does not divide).
Partition sweep_partition(const SweepPlan& plan, int world_size);
// Throws usage_error when a rooted collective's root is not a rank of a group of `nranks`.
void check_root(const SweepPlan& plan, int nranks);
// Throws usage_error when no size of the plan gives each of `nranks` ranks an element (each tensor of a list one):
// a sweep that would skip every size and measure nothing; it names the smallest -e that runs.
void check_some_size_fits(const SweepPlan& plan, int nranks);

// Bytes per rank the sweep's buffers take (checked against the device's memory before allocating); UINT64_MAX
// where the sum would not fit in 64 bits.
std::uint64_t sweep_buffer_bytes(const SweepPlan& plan, int nranks);

// What the sweep asks of one rank and of each call, for the checks made before anything runs.
struct SweepNeeds {
  MemoryNeed memory;          // the buffers (and --tensors' fusion buffer), and the backend's own per call
  std::size_t max_count = 0;  // the most elements one call carries
};
SweepNeeds sweep_needs(const SweepPlan& plan, int nranks, const Backend& backend);

}  // namespace distbench::collective
