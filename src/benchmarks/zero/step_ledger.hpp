// zero --check's view of a step from outside it: a communicator between the step and the real one that forwards
// every call and keeps what the step's collectives did, so that the check judges the step by what it sent and
// received rather than by what its own routines say they did:
//   - the bytes this rank sent, each call counted as a ring algorithm sends it (an allreduce of c elements
//     2 ceil(c/N)(N-1), a reduce-scatter or all-gather of c elements per rank c(N-1), times the element's bytes):
//     the terms of formulas.hpp's bytes_sent_per_step, which the check compares them with (the paper's 2Ψ for stages
//     0-2, 3Ψ for stage 3);
//   - stage 3: every all-gathered layer, once the gather has completed, compared bit for bit with the single-rank
//     reference of that layer's parameters (verify.hpp) at that step. A step gathers its layers in a fixed order
//     (forward: first to last; backward: last to first), so the k-th gather names its layer, pass and step.
// A step that leaves out a gather (or its gather routine) sends fewer bytes and shifts every later gather onto the
// wrong layer: both show here, though nothing inside the step runs.
#pragma once

#include "benchmarks/zero/step.hpp"
#include "core/comm/forwarding_communicator.hpp"
#include "core/device/dense_math.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace distbench::zero {

// Bytes one rank sends in `call` over `ranks` ranks as a ring algorithm does (0 for one rank).
std::uint64_t ring_bytes_sent(const CollectiveCall& call, std::size_t ranks);

class StepLedger final : public ForwardingCommunicator {
 public:
  // `config`: the step's (its stage, type, layers and Adam); `math`: how the step's arrays are reached on a device
  // (null: host memory).
  StepLedger(Communicator& real, const StepConfig& config, DenseMath* math = nullptr);

  const StepConfig& config() const { return config_; }
  std::uint64_t bytes_sent() const { return bytes_; }
  std::uint64_t gathers() const { return gathers_; }
  // Stage 3: the first gathered element that differed from the reference (over every gather so far), and how many.
  const std::optional<Mismatch>& gather_mismatch() const { return gather_mismatch_; }

  void run(const CollectiveCall& call, const ArmedStep& step) override;
  std::unique_ptr<Work> start(const CollectiveCall& call) override;

 private:
  // The `index`-th all-gather (0-based, over the ledger's life), complete: its layer against the reference.
  void check_gathered(const CollectiveCall& call, std::uint64_t index);
  // What a complete all-gather left (all ranks' blocks), as floats.
  std::vector<float> gathered_values(const CollectiveCall& call) const;

  StepConfig config_;
  DenseMath* math_;
  std::vector<Segment> layers_;  // stage 3's segments
  std::uint64_t bytes_ = 0, gathers_ = 0;
  std::optional<Mismatch> gather_mismatch_;
};

}  // namespace distbench::zero
