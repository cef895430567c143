#include "benchmarks/collective/sweep_checker.hpp"

#include "core/comm/checker_everywhere.hpp"

#include <vector>

namespace distbench::collective {

void check_sweep_checker(World& world, const SweepPlan& plan, Watchdog& watchdog, int nranks, int rank) {
  if (plan.check_iters <= 0) return;
  const bool reduces = is_reduction(plan.collective);
  std::vector<CheckerCase> cases;
  for (const DType dtype : plan.dtypes) {
    for (const ReduceOp op : reduces ? plan.ops : std::vector<ReduceOp>{ReduceOp::sum}) {
      if (!reduces || defined_for(op, dtype)) cases.push_back({plan.collective, dtype, op, nranks, rank});
    }
  }
  check_checker_everywhere(world, watchdog, cases);
}

}  // namespace distbench::collective
