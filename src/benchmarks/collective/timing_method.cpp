#include "benchmarks/collective/timing_method.hpp"

#include "benchmarks/collective/timing_methods.hpp"
#include "core/error.hpp"
#include "core/measure/timer.hpp"

#include <fmt/format.h>

namespace distbench::collective {

void TimedCase::run_checked(const ArmedStep& step) { run_waited(comm_, *checked_, timeout_, step); }

std::string TimingMethod::warmup_text(const SweepPlan& plan) const {
  return fmt::format("{} iterations", plan.warmup_iters);
}

const TimingMethod& timing_method(Timing t) {
  static const SampledTiming sampled;
  static const NcclTestsTiming nccl_tests;
  static const OsuTiming osu;
  static const ImbTiming imb;
  switch (t) {
    case Timing::sampled: return sampled;
    case Timing::nccl_tests: return nccl_tests;
    case Timing::osu: return osu;
    case Timing::imb: return imb;
    case Timing::automatic: break;
  }
  throw failure("internal: --timing auto has no method until it is resolved for the backend");
}

const TimingMethod& method_of(const CaseSetup& setup) {
  static const PerTensorTiming per_tensor;
  static const FusedTiming fused;
  if (setup.tensors > 1) return setup.fused ? static_cast<const TimingMethod&>(fused) : per_tensor;
  return timing_method(setup.timing);
}

TimerFactory clock_where_it_runs(Communicator& comm, bool cpu_time) {
  return [&comm, cpu_time]() -> std::unique_ptr<Timer> {
    if (cpu_time) return std::make_unique<HostTimer>();
    return comm.make_timer();
  };
}

TimerFactory host_clock(Communicator& comm, Seconds timeout, bool enqueue_only, bool complete_on_return) {
  return [&comm, timeout, plain = enqueue_only || complete_on_return]() -> std::unique_ptr<Timer> {
    if (plain) return std::make_unique<HostTimer>();
    return std::make_unique<HostThroughCompletionTimer>([&comm, timeout] { comm.synchronize_spinning(timeout); });
  };
}

std::function<void(Seconds)> waiter(Communicator& comm) {
  return [&comm](Seconds t) { comm.synchronize(t); };
}

void run_waited(Communicator& comm, const CollectiveCall& call, Seconds timeout, const ArmedStep& step) {
  comm.run(call, step);
  comm.synchronize(timeout);
}

SamplingRules sampled_rules(const CaseContext& context) {
  return SamplingRules{context.plan.warmup_iters, context.plan.stopping, context.timeout};
}

}  // namespace distbench::collective
