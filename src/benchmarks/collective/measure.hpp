// Measuring one case: warm-up, calibration of operations per sample, timed samples under the stopping rule,
// then verification against exact expected values: of what the timed calls left, and of checked calls.
#pragma once

#include "benchmarks/collective/case_geometry.hpp"
#include "benchmarks/collective/plan.hpp"
#include "core/comm/sampler.hpp"
#include "core/comm/world.hpp"
#include "core/sys/watchdog.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::collective {

struct CaseSetup {
  CollectiveCall call;         // buffers, count, dtype, op, root (group rank)
  CaseGeometry size;           // the case's sizes, worked out once (case_geometry.hpp)
  std::size_t recv_bytes = 0;  // bytes of the region to poison before the check (from the receive position)
  BufferRef poison_at;         // where that region starts
  PatternParams pattern;
  std::string label;  // "allreduce 1 MiB float32 sum out-of-place", for the watchdog and warnings
  // --tensors: the call's buffer (in place) is a list of this many tensors of count / tensors elements (the last one
  // takes the remainder), reduced one call each or fused into one.
  int tensors = 1;
  bool fused = false;
  Timing timing = Timing::sampled;  // the method (--timing, resolved for the communicator)
};

struct Measured {
  Sampling sampling;  // this rank's samples, ops per sample, noise verdict and OS counters
  // Summed over all ranks: the timed calls' results (where checkable), the verification calls' and, for a rooted
  // collective, the verification from another root; -1 when not checked (-c 0).
  std::int64_t wrong = -1;
};

// nccl-tests' warm-up at the start of a sweep (its TimeTest, before the first size of an element type and operator):
// -w operations at each of `setups` (its sizes, smallest to largest, doubling), each size waited for. Every rank runs
// it at the same time.
void warm_up_sizes(Communicator& comm, const SweepPlan& plan, Watchdog& watchdog, const std::vector<CaseSetup>& setups);

// Collective over the whole world: every rank runs its group's case at the same time. The case's method
// (timing_methods.hpp) says what is timed and how; the chores every method shares (filling the send region,
// sampling, the -c checks) are done here.
Measured measure_case(World& world, Communicator& comm, const SweepPlan& plan, Watchdog& watchdog,
                      const CaseSetup& setup);

}  // namespace distbench::collective
