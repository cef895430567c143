#include "benchmarks/collective/timing_methods.hpp"

#include "core/report/text.hpp"

namespace distbench::collective {
namespace {

// k calibrated operations of one call at one buffer position per sample.
class SampledCase final : public TimedCase {
 public:
  explicit SampledCase(const CaseContext& c) : TimedCase(c.comm, c.timeout), call_(c.setup.call) {
    operation_ = {c.setup.label,
                  [this](int times, const ArmedStep& step) { comm_.run_repeated(call_, times, step); },
                  waiter(comm_),
                  clock_where_it_runs(comm_, c.plan.cpu_time),
                  {}};
    rules_ = sampled_rules(c);
    checked_ = &call_;
  }

 private:
  const CollectiveCall& call_;
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
