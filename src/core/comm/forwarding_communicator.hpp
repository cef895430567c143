// A communicator that forwards every call to a real one, for one that stands between a caller and the real one and
// changes or watches one kind of call: train's held reductions, zero's ledger of a step, the tests' mutants. It
// forwards what the real one says of itself too (its parts, whether it runs on a device, what it copies in place), but
// not run_series, prepared nor synchronize_spinning: their defaults call this communicator's run and synchronize, so
// an override of those sees every call.
#pragma once

#include "core/comm/communicator.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace distbench {

class ForwardingCommunicator : public Communicator {
 public:
  explicit ForwardingCommunicator(Communicator& real) : real_(real) {}

  int rank() const override { return real_.rank(); }
  int size() const override { return real_.size(); }
  int local_parts() const override { return real_.local_parts(); }
  std::string_view backend() const override { return real_.backend(); }
  std::optional<std::string> unsupported(Collective c, DType t, ReduceOp op) const override {
    return real_.unsupported(c, t, op);
  }
  void run(const CollectiveCall& call, const ArmedStep& step) override { real_.run(call, step); }
  std::unique_ptr<Work> start(const CollectiveCall& call) override { return real_.start(call); }
  std::unique_ptr<Work> start_send(BufferRef data, std::size_t bytes, int peer) override {
    return real_.start_send(data, bytes, peer);
  }
  std::unique_ptr<Work> start_recv(BufferRef data, std::size_t bytes, int peer) override {
    return real_.start_recv(data, bytes, peer);
  }
  void send(BufferRef data, std::size_t bytes, int peer, Seconds timeout, const ArmedStep& step) override {
    real_.send(data, bytes, peer, timeout, step);
  }
  void recv(BufferRef data, std::size_t bytes, int peer, Seconds timeout, const ArmedStep& step) override {
    real_.recv(data, bytes, peer, timeout, step);
  }
  // Where the real backend leaves a result (an in-place reduce-scatter's block may not be where `recv` says).
  BufferRef result_at(const CollectiveCall& call) const override { return real_.result_at(call); }
  void synchronize(Seconds timeout) override { real_.synchronize(timeout); }
  bool runs_on_device() const override { return real_.runs_on_device(); }
  bool copies_in_place(Collective c) const override { return real_.copies_in_place(c); }
  std::unique_ptr<Timer> make_timer() override { return real_.make_timer(); }

 protected:
  Communicator& real() const { return real_; }

 private:
  Communicator& real_;
};

}  // namespace distbench
