#include "core/comm/sampler.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace distbench {
namespace {

// Several operations per sample for small messages, so that the clock's resolution (tens of ns) and the cost of
// reading it stay far below the time measured (0.5 ms is 20,000 clock ticks), and so that a sample spans the short
// stalls of a shared machine instead of landing in or out of one: shorter samples widen the median's 95% interval
// on a shared machine, longer ones narrow it little more and cost time in every case (what was measured:
// docs/methods.md, 'What is measured').
constexpr double kTargetSampleSeconds = 0.5e-3;
constexpr int kMaxOpsPerSample = 10000;
constexpr double kProbeSeconds = 0.05e-3;  // a calibration batch lasts at least this long
constexpr int kProbeRepeats = 2;           // extra probes; the fastest counts

struct Calibration {
  int ops_per_sample = 1;
  double seconds_per_op = 0;  // the slowest rank's, from the fastest probe
};

double max_over_ranks(Connector& connector, double value, const ArmedStep& step) {
  const auto all = allgather_value(connector, value, step);
  return *std::max_element(all.begin(), all.end());
}

// `times` operations, untimed (warm-up).
void run_untimed(const TimedOperation& op, int times, const ArmedStep& step) {
  if (op.phases.empty()) {
    op.run(times, step);
    return;
  }
  for (int i = 0; i < times; ++i) {
    for (const TimedPhase& phase : op.phases) phase.run(step);
  }
}

// One timed batch of `times` operations; seconds for the batch. With phases, adds each phase's seconds for the
// batch to `phase_seconds` (one entry per phase).
double timed_batch(const TimedOperation& op, int times, Seconds timeout, const ArmedStep& step,
                   std::vector<double>* phase_seconds = nullptr, const TimerFactory& make_beside_timer = {},
                   double* beside_seconds = nullptr) {
  if (op.phases.empty()) {
    auto timer = op.make_timer();
    std::unique_ptr<Timer> beside = make_beside_timer ? make_beside_timer() : nullptr;
    timer->start();
    if (beside) beside->start();
    op.run(times, step);
    if (beside) beside->stop();
    timer->stop();
    op.synchronize(timeout);
    if (beside && beside_seconds != nullptr) *beside_seconds = beside->seconds();
    return timer->seconds();
  }
  std::vector<std::vector<std::unique_ptr<Timer>>> timers(op.phases.size());
  for (std::size_t p = 0; p < op.phases.size(); ++p) {
    for (int i = 0; i < times; ++i) timers[p].push_back(op.phases[p].make_timer());
  }
  auto timer = op.make_timer();
  timer->start();
  for (int i = 0; i < times; ++i) {
    for (std::size_t p = 0; p < op.phases.size(); ++p) {
      Timer& t = *timers[p][static_cast<std::size_t>(i)];
      t.start();
      op.phases[p].run(step);
      t.stop();
    }
  }
  timer->stop();
  op.synchronize(timeout);
  if (phase_seconds != nullptr) {
    phase_seconds->assign(op.phases.size(), 0.0);
    for (std::size_t p = 0; p < op.phases.size(); ++p) {
      for (auto& t : timers[p]) (*phase_seconds)[p] += t->seconds();
    }
  }
  return timer->seconds();
}

Calibration calibrate(Connector& connector, const TimedOperation& op, Watchdog& watchdog, Seconds timeout) {
  // Double a probe batch until it lasts long enough to time well, then keep the best of a few repeats, so that one
  // preempted probe does not shrink every later sample to a single operation. Each decision uses the slowest
  // rank's time, so that all ranks run the same number of operations.
  const ArmedStep step = watchdog.arm(StepKind::calibration, op.label + ": calibration");
  int batch = 1;
  double slowest = 0;
  while (true) {
    watchdog.arm_again();
    slowest = max_over_ranks(connector, timed_batch(op, batch, timeout, step), step);
    if (slowest >= kProbeSeconds || batch >= kMaxOpsPerSample) break;
    batch *= 2;
  }
  for (int repeat = 0; repeat < kProbeRepeats; ++repeat) {
    watchdog.arm_again();
    slowest = std::min(slowest, max_over_ranks(connector, timed_batch(op, batch, timeout, step), step));
  }
  const double per_op = slowest / batch;
  if (per_op <= 0) return {kMaxOpsPerSample, 0};
  return {static_cast<int>(
              std::clamp(std::ceil(kTargetSampleSeconds / per_op), 1.0, static_cast<double>(kMaxOpsPerSample))),
          per_op};
}

// Untimed operations before anything is timed; with a barrier after each where the peers' loops have one.
void run_warm_up(Connector& connector, const TimedOperation& op, const SamplingRules& rules, Watchdog& watchdog) {
  if (rules.warmup_iters <= 0) return;
  const ArmedStep step = watchdog.arm(StepKind::warm_up, op.label + ": warm-up");
  if (rules
          .barrier_after_sample) {  // the peers' untimed calls are their timed loop's first turns: a barrier after each
    for (int i = 0; i < rules.warmup_iters; ++i) {
      run_untimed(op, 1, step);
      op.synchronize(rules.timeout);
      connector.barrier(step);
    }
  } else {
    run_untimed(op, rules.warmup_iters, step);
    op.synchronize(rules.timeout);
  }
}

// Operations per sample: fixed, or calibrated; and the seconds one takes, where that is measured.
Calibration plan_ops_per_sample(Connector& connector, const TimedOperation& op, const SamplingRules& rules,
                                Watchdog& watchdog) {
  if (rules.fixed_ops_per_sample > 0 && !rules.stopping.depends_on_time()) {
    // Fixed blocks, a fixed count of them (--blocks): nothing to plan, so no untimed block before the first timed
    // one (nccl-tests times its first; one more pass over the buffers can change what the next case reads).
    return {rules.fixed_ops_per_sample, 0.0};
  }
  if (rules.fixed_ops_per_sample > 0) {
    const ArmedStep step = watchdog.arm(StepKind::calibration, op.label + ": a first batch");
    const int ops = rules.fixed_ops_per_sample;
    return {ops, max_over_ranks(connector, timed_batch(op, ops, rules.timeout, step), step) / ops};
  }
  return calibrate(connector, op, watchdog, rules.timeout);
}

// Takes one sample into `out` each time it is called.
class SampleTaker {
 public:
  SampleTaker(Connector& connector, const TimedOperation& op, const SamplingRules& rules, Watchdog& watchdog,
              const ArmedStep& step, const TimerFactory& make_beside_timer, Sampling& out)
      : connector_(connector),
        op_(op),
        rules_(rules),
        watchdog_(watchdog),
        step_(step),
        make_beside_timer_(make_beside_timer),
        out_(out),
        // The peers' loops (one call timed, then a barrier): between two calls a rank does little more than OSU's
        // and IMB's loops do (one timer for every call, nothing allocated), since where ranks share CPUs the work a
        // rank does outside its timed call delays the others' timed calls.
        call_timer_(rules.barrier_after_sample && op.phases.empty() && !make_beside_timer ? op.make_timer() : nullptr) {
  }

  void operator()() {
    watchdog_.arm_again();
    if (call_timer_) {
      call_timer_->start();
      op_.run(out_.ops_per_sample, step_);
      call_timer_->stop();
      op_.synchronize(rules_.timeout);
      out_.samples.push_back(call_timer_->seconds() / out_.ops_per_sample);
      connector_.barrier(step_);
      return;
    }
    out_.samples.push_back(timed_batch(op_, out_.ops_per_sample, rules_.timeout, step_, &phase_seconds_,
                                       make_beside_timer_, &beside_seconds_) /
                           out_.ops_per_sample);
    if (make_beside_timer_) out_.beside_samples.push_back(beside_seconds_ / out_.ops_per_sample);
    if (rules_.barrier_after_sample) connector_.barrier(step_);
    for (std::size_t p = 0; p < phase_seconds_.size(); ++p) {
      out_.phase_samples[p].push_back(phase_seconds_[p] / out_.ops_per_sample);
    }
  }

 private:
  Connector& connector_;
  const TimedOperation& op_;
  const SamplingRules& rules_;
  Watchdog& watchdog_;
  const ArmedStep& step_;
  const TimerFactory& make_beside_timer_;
  Sampling& out_;
  const std::unique_ptr<Timer> call_timer_;
  std::vector<double> phase_seconds_;
  double beside_seconds_ = 0;
};

// Samples until the stopping rule says: as many as the calibration plans for the budget, or (noise mode) until the
// root decides the noise target is met.
void take_all_samples(Connector& connector, const SamplingRules& rules, const Calibration& calibration,
                      const ArmedStep& step, SampleTaker& take_sample, Sampling& out) {
  const StoppingRule& rule = rules.stopping;
  if (!rule.noise_mode()) {
    // As many samples as fit the budget: planned from the calibration, which every rank agrees on.
    const double sample_s = calibration.seconds_per_op * out.ops_per_sample;
    const std::size_t planned = samples_for_min_ops(rule.planned_samples(sample_s), rules.min_timed_ops,
                                                    out.ops_per_sample, sample_s, rules.min_ops_max_time_s);
    out.samples.reserve(planned);
    for (std::size_t i = 0; i < planned; ++i) take_sample();
    return;
  }
  const auto began = std::chrono::steady_clock::now();
  while (true) {
    take_sample();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    bool stop = rule.done(out.samples, elapsed);
    broadcast_value(connector, stop, connector.root_rank(), step);  // the root decides: all take as many samples
    if (stop) break;
  }
}

}  // namespace

std::size_t samples_for_min_ops(std::size_t planned, std::uint64_t min_ops, int ops_per_sample, double sample_s,
                                double max_time_s) {
  if (min_ops == 0 || ops_per_sample <= 0) return planned;
  const std::uint64_t ops = static_cast<std::uint64_t>(ops_per_sample);
  std::uint64_t needed = (min_ops + ops - 1) / ops;
  if (sample_s > 0) {
    const double fit = std::floor(max_time_s / sample_s);
    if (fit < static_cast<double>(needed)) needed = fit < 0 ? 0 : static_cast<std::uint64_t>(fit);
  }
  return std::max<std::size_t>(planned, static_cast<std::size_t>(needed));
}

Sampling sample_operation(Connector& connector, const TimedOperation& op, const SamplingRules& rules,
                          Watchdog& watchdog, const TimerFactory& make_beside_timer,
                          const BeforeSamples& before_samples) {
  Sampling out;
  run_warm_up(connector, op, rules, watchdog);
  const Calibration calibration = plan_ops_per_sample(connector, op, rules, watchdog);
  out.ops_per_sample = calibration.ops_per_sample;
  if (before_samples) before_samples();
  {
    const ArmedStep step = watchdog.arm(StepKind::barrier, op.label + ": barrier before sampling");
    connector.barrier(step);
  }
  const ArmedStep step = watchdog.arm(StepKind::sampling, op.label + ": timed samples");
  out.phase_samples.resize(op.phases.size());
  SampleTaker take(connector, op, rules, watchdog, step, make_beside_timer, out);
  const OsCounters before = thread_os_counters();
  take_all_samples(connector, rules, calibration, step, take, out);
  out.os_per_op =
      per_operation(before, thread_os_counters(), static_cast<double>(out.samples.size()) * out.ops_per_sample);
  out.noise_target_met = rules.stopping.target_met(out.samples);
  return out;
}

}  // namespace distbench
