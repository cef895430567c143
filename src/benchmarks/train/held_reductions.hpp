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

#include "core/comm/communicator.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace distbench::train {

class HeldReductions final : public Communicator {
 public:
  explicit HeldReductions(Communicator& real) : real_(real) {}

  std::unique_ptr<Work> start(const CollectiveCall& call) override;

  int rank() const override { return real_.rank(); }
  int size() const override { return real_.size(); }
  int local_parts() const override { return real_.local_parts(); }
  std::string_view backend() const override { return real_.backend(); }
  std::optional<std::string> unsupported(Collective c, DType t, ReduceOp op) const override {
    return real_.unsupported(c, t, op);
  }
  void run(const CollectiveCall& call, const ArmedStep& step) override { real_.run(call, step); }
  std::unique_ptr<Work> start_send(BufferRef data, std::size_t bytes, int peer) override {
    return real_.start_send(data, bytes, peer);
  }
  std::unique_ptr<Work> start_recv(BufferRef data, std::size_t bytes, int peer) override {
    return real_.start_recv(data, bytes, peer);
  }
  BufferRef result_at(const CollectiveCall& call) const override { return real_.result_at(call); }
  void synchronize(Seconds timeout) override { real_.synchronize(timeout); }
  bool runs_on_device() const override { return real_.runs_on_device(); }
  bool copies_in_place(Collective c) const override { return real_.copies_in_place(c); }
  std::unique_ptr<Timer> make_timer() override { return real_.make_timer(); }

 private:
  Communicator& real_;
};

}  // namespace distbench::train
