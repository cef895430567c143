#include "benchmarks/collective/rotation.hpp"
#include "benchmarks/collective/timing_methods.hpp"

#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace distbench::collective {
namespace {

// Operations per timed block: -n, x -m, x -G.
int block_ops(const SweepPlan& plan) {
  const BackendOptions& o = plan.backend_options;
  return plan.block_iters * std::max(1, o.agg_iters) * std::max(1, o.graph_launches);
}

// Blocks of operations at rotating positions on the host clock (through completion, or to the last enqueue with
// -C 1), the device's events around the same block beside where the calls run on a device.
class BlocksCase final : public TimedCase {
 public:
  BlocksCase(const CaseContext& c, int ops)
      : TimedCase(c.comm, c.timeout), calls_(rotated_calls(c.setup, distinct_calls_per_block(c.plan))) {
    operation_ = {c.setup.label,
                  [this](int times, const ArmedStep& step) { comm_.run_series(calls_, times, step); },
                  waiter(comm_),
                  host_clock(comm_, timeout_, c.plan.cpu_time, false),
                  {}};
    rules_ = SamplingRules{c.plan.warmup_iters, c.plan.block_stopping, timeout_, ops};
    if (comm_.runs_on_device()) beside_ = [&comm = comm_] { return comm.make_timer(); };
    checked_ = &c.setup.call;  // the case's own position
    positions_ = calls_;       // every position a block runs at (a block is `ops` calls, at least one per position)
  }

 private:
  std::vector<CollectiveCall> calls_;
};

}  // namespace

std::string NcclTestsTiming::samples_text(const SweepPlan& plan) const {
  const BackendOptions& o = plan.backend_options;
  std::string ops = fmt::format("{}", plan.block_iters);
  if (o.agg_iters > 1) ops += fmt::format(" x {} (-m)", o.agg_iters);
  if (o.graph_launches > 0) ops += fmt::format(" x {} (-G)", o.graph_launches);
  return fmt::format("{}, each a block of {} operations (-n{})", distbench::samples_text(plan.block_stopping), ops,
                     plan.blocks_given ? ", --blocks" : "");
}

// Every size of the sweep warmed up first, for each element type and operator (as all_reduce_perf does); a list
// has no such warm-up.
std::string NcclTestsTiming::warmup_text(const SweepPlan& plan) const {
  if (plan.tensors > 1 || plan.warmup_iters <= 0) return TimingMethod::warmup_text(plan);
  return fmt::format("{} at each size (doubling) first, {} per case", plan.warmup_iters, plan.warmup_iters);
}

std::string NcclTestsTiming::timing_text(const SweepPlan& plan, bool on_device) const {
  return fmt::format(
      "timing: nccl-tests (--timing): the host clock around each block{}, buffer positions rotated per operation "
      "as nccl-tests does{}{}",
      plan.cpu_time ? " until its last call is enqueued (-C 1)" : " and the wait for its completion",
      on_device ? "; the device's events around the same blocks in the reports (device_time_us, --columns device)" : "",
      !on_device                            ? ""
      : plan.backend_options.nccl_mem_alloc ? "; buffers from ncclMemAlloc, as all_reduce_perf allocates them (--alloc)"
                                            : "; buffers from cudaMalloc (--alloc; all_reduce_perf allocates with "
                                              "ncclMemAlloc)");
}

std::unique_ptr<TimedCase> NcclTestsTiming::prepare(const CaseContext& context) const {
  return std::make_unique<BlocksCase>(context, block_ops(context.plan));
}

}  // namespace distbench::collective
