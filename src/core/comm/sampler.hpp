// Timing any operation: warm-up, calibration of k operations per sample (agreed by all ranks), a barrier, then
// samples of k back-to-back operations under the stopping rule, with the OS counters around them. The collective
// sweep uses it for one collective call; other benchmarks time whatever they run (a ZeRO step, a training
// iteration, a compute-only phase with a Device's timer). Nothing but `run` happens between a sample's timer reads.
#pragma once

#include "core/comm/connector.hpp"
#include "core/measure/os_counters.hpp"
#include "core/measure/stopping.hpp"
#include "core/measure/timer.hpp"
#include "core/sys/watchdog.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace distbench {

// A named part of a composite operation (e.g. "reduce", "update", "gather" of an optimizer step), timed on its own
// inside every operation of a sample by a timer from where it runs: a Communicator's for a collective, a Device's for
// compute.
struct TimedPhase {
  std::string name;
  std::function<void(const ArmedStep&)> run;  // the phase, once, inside the sampler's step
  std::function<std::unique_ptr<Timer>()> make_timer;
};

struct TimedOperation {
  std::string label;                                     // for the watchdog: "allreduce 1 MiB float32 sum in-place"
  std::function<void(int times, const ArmedStep&)> run;  // `times` operations back to back (unused with phases)
  std::function<void(Seconds timeout)> synchronize;      // waits for what the operation enqueued (a no-op on the host)
  std::function<std::unique_ptr<Timer>()> make_timer;    // a timer where the operation runs
  // Empty: `run` is the operation, and nothing else runs inside a sample. Otherwise one operation is every phase in
  // order, each between its own timer's start and stop (timers made before the sample starts).
  std::vector<TimedPhase> phases;
};

// Optional: a second timer around the same batches (device events beside nccl-tests' host clock), started after and
// stopped before the operation's own; its time is kept beside the samples.
using TimerFactory = std::function<std::unique_ptr<Timer>()>;

struct SamplingRules {
  int warmup_iters = 5;
  StoppingRule stopping;
  Seconds timeout{300.0};  // bounds each step (a batch, a barrier, a collective decision)
  // > 0: every sample is this many operations (nccl-tests' -n x -m), not a calibrated count; one untimed batch of
  // them still plans the number of samples, unless that number does not depend on time (then none runs).
  int fixed_ops_per_sample = 0;
  // A barrier over the connector's ranks after every sample, outside its timer (OSU's and IMB's loops: one call
  // timed, then MPI_Barrier), so that no rank starts its next call before every rank has finished the last.
  bool barrier_after_sample = false;
  // Count mode: at least this many operations over all samples (a peer's iteration count, osu_latency's), whatever
  // the time budget of `stopping` would cut, but no more samples than last min_ops_max_time_s by the calibration.
  std::uint64_t min_timed_ops = 0;
  double min_ops_max_time_s = 1.0;
};

// The samples count mode takes: `planned` (the stopping rule's), raised to ceil(min_ops / ops_per_sample) where that
// is more, but not past the samples that fit max_time_s when one lasts sample_s seconds (never below `planned`).
std::size_t samples_for_min_ops(std::size_t planned, std::uint64_t min_ops, int ops_per_sample, double sample_s,
                                double max_time_s);

struct Sampling {
  std::vector<double> samples;  // this rank's seconds per operation, one per sample
  int ops_per_sample = 1;
  bool noise_target_met = true;
  OsCounters os_per_op;  // this rank's page faults and context switches per operation, over the samples
  // With phases: per phase (in order), this rank's seconds per operation in that phase, one per sample.
  std::vector<std::vector<double>> phase_samples;
  // With a beside timer: its seconds per operation, one per sample.
  std::vector<double> beside_samples;
};

// Run once, untimed, after the warm-up and the calibration and before the barrier that starts the samples (the
// collective sweep poisons there the region whose content it checks after the samples: what the timed calls left).
using BeforeSamples = std::function<void()>;

// Collective over the connector's ranks: every rank calls it for its own operation at the same time.
Sampling sample_operation(Connector& connector, const TimedOperation& op, const SamplingRules& rules,
                          Watchdog& watchdog, const TimerFactory& make_beside_timer = {},
                          const BeforeSamples& before_samples = {});

}  // namespace distbench
