// train --check's hold on the observed steps' reductions: a communicator between the step and the real one that starts
// each reduction (allreduce, reduce-scatter) only when the step waits for it, and forwards everything else. A correct
// step waits for every bucket before it reads the bucket's sums, so it ends as without the hold (in wait order rather
// than as the backward made the buckets: the observed steps are untimed). A step that waits for the wrong bucket, or
// reads a bucket before its wait, reads sums that were never made, every time: the bucket check (bucket_check.hpp)
// then names the bucket. Without the hold the library may have finished the reduction anyway, and the mistake shows
// only now and then (it was caught at np 4 with ZeRO-2 and bf16 gradients, not every time, and never at np 2).
//
// Every rank waits in the same order (the step's code is the same), so the held collectives start in the same order
// on every rank, as collectives must; a reduction never waited is never started, on any rank.
#pragma once

#include "core/comm/forwarding_communicator.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace distbench::train {

class HeldReductions final : public ForwardingCommunicator {
 public:
  explicit HeldReductions(Communicator& real) : ForwardingCommunicator(real) {}

  std::unique_ptr<Work> start(const CollectiveCall& call) override;
};

}  // namespace distbench::train
