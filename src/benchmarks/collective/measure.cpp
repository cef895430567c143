#include "benchmarks/collective/measure.hpp"

#include "benchmarks/collective/case_check.hpp"
#include "benchmarks/collective/rotation.hpp"
#include "benchmarks/collective/timing_method.hpp"

namespace distbench::collective {

void warm_up_sizes(Communicator& comm, const SweepPlan& plan, Watchdog& watchdog,
                   const std::vector<CaseSetup>& setups) {
  if (plan.warmup_iters <= 0 || setups.empty()) return;
  // On whatever the buffers hold, as nccl-tests: filling them first would change what is measured after (on a GPU,
  // memory of ncclMemAlloc's that nothing has written can read slower until it has been read a number of times).
  const Seconds timeout(plan.timeout_s);
  for (const CaseSetup& setup : setups) {
    const ArmedStep step = watchdog.arm(StepKind::warm_up, setup.label + ": warm-up of the sweep");
    const std::vector<CollectiveCall> calls = rotated_calls(setup, plan.warmup_iters);
    for (int k = 0; k < plan.warmup_iters; ++k) comm.run(calls[static_cast<std::size_t>(k) % calls.size()], step);
    comm.synchronize(timeout);
  }
}

// With -c N > 0 the case's wrong elements are those the timed calls left (where checkable), added to its
// verifications' (case_check.hpp).
// The timed calls run on the pattern without its subnormals (pattern.hpp: without_subnormals), the verification
// calls on all of it.
Measured measure_case(World& world, Communicator& comm, const SweepPlan& plan, Watchdog& watchdog,
                      const CaseSetup& setup) {
  CaseSetup timed_setup = setup;
  timed_setup.pattern = without_subnormals(setup.pattern);
  fill_send(world, comm, timed_setup);
  const std::unique_ptr<TimedCase> timed =
      method_of(setup).prepare(CaseContext{world, comm, plan, setup, Seconds(plan.timeout_s)});
  const bool check_timed = plan.check_iters > 0 && timed_result_checkable(setup.call);
  const TimedResults results(world, comm, timed_setup, *timed);
  BeforeSamples before_samples;
  if (check_timed) before_samples = [&] { results.prepare(watchdog); };
  Measured out;
  out.sampling = sample_operation(world.connector(), timed->operation(), timed->rules(), watchdog, timed->beside(),
                                  before_samples);
  // Counted before the verifications poison and overwrite what the timed calls left.
  const std::int64_t timed_wrong = check_timed ? results.count_wrong(watchdog) : 0;
  out.wrong = verify_case(world, comm, plan, setup, *timed, watchdog);
  if (out.wrong >= 0) out.wrong += timed_wrong;
  return out;
}

}  // namespace distbench::collective
