#include "benchmarks/train/held_reductions.hpp"

#include <utility>

namespace distbench::train {
namespace {

// A reduction not started until it is waited for; not done before then.
class HeldWork final : public Work {
 public:
  HeldWork(Communicator& real, const CollectiveCall& call) : real_(real), call_(call) {}
  bool done() override { return started_ != nullptr && started_->done(); }
  void wait(Seconds timeout) override {
    if (started_ == nullptr) started_ = real_.start(call_);
    started_->wait(timeout);
  }

 private:
  Communicator& real_;
  CollectiveCall call_;
  std::unique_ptr<Work> started_;
};

}  // namespace

std::unique_ptr<Work> HeldReductions::start(const CollectiveCall& call) {
  if (call.collective != Collective::allreduce && call.collective != Collective::reduce_scatter) {
    return real().start(call);
  }
  return std::make_unique<HeldWork>(real(), call);
}

}  // namespace distbench::train
