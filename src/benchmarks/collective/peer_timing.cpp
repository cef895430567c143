#include "benchmarks/collective/timing_methods.hpp"

#include <fmt/format.h>

namespace distbench::collective {
namespace {

// The peers' call: where MPI has two forms, theirs (reduce-scatter: MPI_Reduce_scatter, not distbench's
// MPI_Reduce_scatter_block).
CollectiveCall peers_call(CollectiveCall call) {
  call.form = CallForm::vector;
  return call;
}

// One call at a time, a barrier after each outside the timer, the peer's counts; the table's mean per rank is their
// per-rank average, and -a avg (the default) their average over ranks.
class PeerCase final : public TimedCase {
 public:
  PeerCase(const CaseContext& c, PeerCounts counts)
      : TimedCase(c.comm, c.timeout), call_(peers_call(c.setup.call)), once_(comm_.prepared(call_)) {
    operation_ = {c.setup.label,
                  [this](int times, const ArmedStep& step) {
                    for (int i = 0; i < times; ++i) once_(step);
                  },
                  waiter(comm_),
                  host_clock(comm_, timeout_, c.plan.cpu_time, !comm_.runs_on_device()),
                  {}};
    const auto n = static_cast<std::size_t>(counts.iterations);
    rules_ = SamplingRules{
        counts.warmup, StoppingRule{.samples = n, .max_noise = 0.0, .min_samples = n, .max_time_s = 0.0}, timeout_, 1};
    rules_.barrier_after_sample = true;
    checked_ = &call_;
  }

 private:
  const CollectiveCall call_;  // timed and checked
  const Communicator::PreparedCall once_;
};

}  // namespace

std::string PeerTiming::samples_text(const SweepPlan& plan) const {
  if (plan.iters_given > 0) return fmt::format("{} calls per case (-n), one at a time", plan.iters_given);
  return std::string(counts_text());
}

std::string PeerTiming::warmup_text(const SweepPlan& plan) const {
  return plan.warmup_given >= 0 ? fmt::format("{} calls (-w)", plan.warmup_given) : std::string("the peer's, per size");
}

std::string PeerTiming::timing_text(const SweepPlan& plan, bool on_device) const {
  return fmt::format(
      "timing: {} (--timing): the host clock around each call{}, then a barrier outside it; the "
      "time is the mean of a rank's calls, as {} averages them{}",
      name(id()), plan.cpu_time ? " until it is enqueued (-C 1)" : " and the wait for its completion", average_text(),
      page_aligned_buffers() && !on_device ? "; host buffers at a page boundary, as osu_* allocates them" : "");
}

std::unique_ptr<TimedCase> PeerTiming::prepare(const CaseContext& context) const {
  return std::make_unique<PeerCase>(context, with_given_counts(context.plan, own_counts(context.setup.size.asked)));
}

std::string_view OsuTiming::counts_text() const {
  return "OSU's: 1000 calls after 100 untimed up to 8 KiB, 100 after 10 above, one at a time";
}

std::string_view ImbTiming::counts_text() const {
  return "IMB's: min(1000, 40 MiB / size) calls after a tenth as many untimed (at least 10), one at a time";
}

}  // namespace distbench::collective
