// The collective sweep's timing methods: --timing's four, and the two ways of reducing a --tensors list.
#pragma once

#include "benchmarks/collective/peer_counts.hpp"
#include "benchmarks/collective/timing_method.hpp"

#include <string_view>

namespace distbench::collective {

// sampled: samples of k calibrated operations at one buffer position, timed where they run (CUDA events on a GPU,
// the host clock for MPI).
class SampledTiming : public TimingMethod {
 public:
  bool times_lists() const override { return true; }
  std::string samples_text(const SweepPlan& plan) const override;
  std::string timing_text(const SweepPlan& plan, bool on_device) const override;
  std::unique_ptr<TimedCase> prepare(const CaseContext& context) const override;
};

// nccl-tests' method: blocks of -n (x -m, x -G) operations at rotating buffer positions, on the host clock from before
// the first enqueue until the streams are idle (with -C 1 until the last is enqueued), the device's events around the
// same block beside; every size of the sweep warmed up first, as all_reduce_perf does.
class NcclTestsTiming final : public TimingMethod {
 public:
  bool counts_blocks() const override { return true; }
  bool warms_up_sizes() const override { return true; }
  std::string samples_text(const SweepPlan& plan) const override;
  std::string warmup_text(const SweepPlan& plan) const override;
  std::string timing_text(const SweepPlan& plan, bool on_device) const override;
  std::unique_ptr<TimedCase> prepare(const CaseContext& context) const override;
};

// The peers' loops (OSU's, IMB's): one call at a time on the host clock through its completion, a barrier after each
// outside the timer, their own counts of timed and untimed calls at each size; their call where MPI has two forms.
class PeerTiming : public TimingMethod {
 public:
  bool keeps_noise_target() const override { return false; }
  bool calls_as_peers() const override { return true; }
  std::string samples_text(const SweepPlan& plan) const override;
  std::string warmup_text(const SweepPlan& plan) const override;
  std::string timing_text(const SweepPlan& plan, bool on_device) const override;
  std::unique_ptr<TimedCase> prepare(const CaseContext& context) const override;

 private:
  virtual Timing id() const = 0;
  virtual PeerCounts own_counts(std::uint64_t bytes) const = 0;
  virtual std::string_view counts_text() const = 0;   // the peer's counts, in words
  virtual std::string_view average_text() const = 0;  // how the peer averages a rank's calls
};

// OSU Micro-Benchmarks' osu_* (peer_counts.hpp: osu_counts); host buffers at a page boundary, as osu_* allocates them.
class OsuTiming final : public PeerTiming {
 public:
  bool page_aligned_buffers() const override { return true; }

 private:
  Timing id() const override { return Timing::osu; }
  PeerCounts own_counts(std::uint64_t bytes) const override { return osu_counts(bytes); }
  std::string_view counts_text() const override;
  std::string_view average_text() const override { return "osu_* (its Avg Latency: -a avg)"; }
};

// Intel MPI Benchmarks' IMB-MPI1 (peer_counts.hpp: imb_counts).
class ImbTiming final : public PeerTiming {
 private:
  Timing id() const override { return Timing::imb; }
  PeerCounts own_counts(std::uint64_t bytes) const override { return imb_counts(bytes); }
  std::string_view counts_text() const override;
  std::string_view average_text() const override { return "IMB-MPI1 (its t_avg: -a avg)"; }
};

// --tensors N, one allreduce per tensor, back to back (the seeds' pass); sampled.
class PerTensorTiming final : public SampledTiming {
 public:
  std::unique_ptr<TimedCase> prepare(const CaseContext& context) const override;
};

// --tensors N fused: packed into one buffer, one allreduce, unpacked, each part timed as a phase; sampled.
class FusedTiming final : public SampledTiming {
 public:
  std::unique_ptr<TimedCase> prepare(const CaseContext& context) const override;
};

}  // namespace distbench::collective
