#include "benchmarks/collective/timing_methods.hpp"

#include "core/report/text.hpp"

namespace distbench::collective {
namespace {

// k calibrated operations of one call at one buffer position per sample.
class SampledCase final : public TimedCase {
 public:
  explicit SampledCase(const CaseContext& c) : comm_(c.comm), call_(c.setup.call), timeout_(c.timeout) {
    operation_ = {c.setup.label,
                  [this](int times, const ArmedStep& step) { comm_.run_repeated(call_, times, step); },
                  waiter(comm_), clock_where_it_runs(comm_, c.plan.cpu_time), {}};
    rules_ = sampled_rules(c);
  }
  void run_checked(const ArmedStep& step) override { run_waited(comm_, call_, timeout_, step); }

 private:
  Communicator& comm_;
  const CollectiveCall& call_;
  Seconds timeout_;
};

}  // namespace

std::string SampledTiming::samples_text(const SweepPlan& plan) const { return distbench::samples_text(plan.stopping); }

std::string SampledTiming::timing_text(const SweepPlan&, bool on_device) const {
  return on_device ? "timing: sampled (--timing): CUDA events around each sample's operations, one buffer position"
                   : "timing: sampled (--timing): the host clock around each sample's operations, one buffer position";
}

std::unique_ptr<TimedCase> SampledTiming::prepare(const CaseContext& context) const {
  return std::make_unique<SampledCase>(context);
}

}  // namespace distbench::collective
