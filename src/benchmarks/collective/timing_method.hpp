// How a case is timed, one type per method (as nvbench's stopping criteria and Google Benchmark's runners are):
// each owns its rules (which of the sweep's options it takes), its counts (what a case times, under which sampling
// rules, in the header's words) and the call a check runs. measure_case looks a case's method up and does the chores
// every method shares; the methods are in timing_methods.hpp.
#pragma once

#include "benchmarks/collective/measure.hpp"
#include "core/comm/sampler.hpp"

#include <memory>
#include <string>
#include <vector>

namespace distbench::collective {

// What a method times one case with.
struct CaseContext {
  World& world;
  Communicator& comm;
  const SweepPlan& plan;
  const CaseSetup& setup;
  Seconds timeout;  // -T
};

// One case as its method times it. It owns what its timed operation refers to (rotated calls, a list's tensors, the
// fusion buffer), so it stays where it was made while it is sampled and checked.
class TimedCase {
 public:
  TimedCase(Communicator& comm, Seconds timeout) : comm_(comm), timeout_(timeout) {}
  TimedCase(const TimedCase&) = delete;
  TimedCase& operator=(const TimedCase&) = delete;
  virtual ~TimedCase() = default;

  const TimedOperation& operation() const { return operation_; }
  const SamplingRules& rules() const { return rules_; }
  const TimerFactory& beside() const { return beside_; }  // a second timer around the same samples; empty: none
  // The case run once as a check sees it, waited for: the one call `checked_` of a one-buffer method; a list
  // overrides it.
  virtual void run_checked(const ArmedStep& step);
  // Where the timed calls leave their results: the positions of the calls they make (nccl-tests' rotation), each
  // checked after the samples; empty: the case's own position (one buffer, or a list covering the case's buffer).
  const std::vector<CollectiveCall>& timed_positions() const { return positions_; }

 protected:
  Communicator& comm_;
  Seconds timeout_;  // -T
  TimedOperation operation_;
  SamplingRules rules_;
  TimerFactory beside_;
  const CollectiveCall* checked_ = nullptr;
  std::vector<CollectiveCall> positions_;
};

class TimingMethod {
 public:
  virtual ~TimingMethod() = default;

  // Rules: what the method makes of the sweep's options and buffers.
  virtual bool counts_blocks() const { return false; }         // --blocks: timed blocks per case
  virtual bool times_lists() const { return false; }           // --tensors: a list reduced per operation
  virtual bool keeps_noise_target() const { return true; }     // --max-noise, --max-time
  virtual bool warms_up_sizes() const { return false; }        // every size of the sweep warmed up first
  virtual bool calls_as_peers() const { return false; }        // MPI's call where it has two forms (reduce-scatter)
  virtual bool page_aligned_buffers() const { return false; }  // host buffers at a page boundary
  // Counts, in the header's words.
  virtual std::string samples_text(const SweepPlan& plan) const = 0;
  virtual std::string warmup_text(const SweepPlan& plan) const;
  virtual std::string timing_text(const SweepPlan& plan, bool on_device) const = 0;
  // The case as this method times it.
  virtual std::unique_ptr<TimedCase> prepare(const CaseContext& context) const = 0;
};

// The method of --timing `t` (resolved: not automatic).
const TimingMethod& timing_method(Timing t);
// The method that times `setup`: its --tensors list's (per tensor or fused), else its --timing's.
const TimingMethod& method_of(const CaseSetup& setup);

// Helpers the methods share.
// Where the calls run (CUDA events for nccl), or the host clock with -C 1 (which for nccl stops once the calls are
// enqueued).
TimerFactory clock_where_it_runs(Communicator& comm, bool cpu_time);
// The host clock around a timed batch: until its last call is enqueued (-C 1, `enqueue_only`), else through the
// work's completion, polled without sleeping as nccl-tests does; the clock alone where the backend's calls are
// complete on return (`complete_on_return`).
TimerFactory host_clock(Communicator& comm, Seconds timeout, bool enqueue_only, bool complete_on_return);
// Waits for what the operation enqueued.
std::function<void(Seconds)> waiter(Communicator& comm);
// One call, waited for: what a check runs for a one-buffer case.
void run_waited(Communicator& comm, const CollectiveCall& call, Seconds timeout, const ArmedStep& step);
// The plan's sampling rules for a case timed by samples (sampled, the lists).
SamplingRules sampled_rules(const CaseContext& context);

}  // namespace distbench::collective
