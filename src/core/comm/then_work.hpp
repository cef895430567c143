// A call's completion, then something more once it has completed, once (whichever of done() and wait() sees it
// complete first; wait's timeout is handed on, done()'s bound is 60 s): for a communicator between a caller and the
// real one that acts on what a call left (zero's step ledger; the tests' mutants).
#pragma once

#include "core/comm/communicator.hpp"

#include <functional>
#include <memory>
#include <utility>

namespace distbench {

class ThenWork final : public Work {
 public:
  ThenWork(std::unique_ptr<Work> first, std::function<void(Seconds)> then)
      : first_(std::move(first)), then_(std::move(then)) {}
  bool done() override {
    if (!first_->done()) return false;
    finish(Seconds{60.0});
    return true;
  }
  void wait(Seconds timeout) override {
    first_->wait(timeout);
    finish(timeout);
  }

 private:
  void finish(Seconds timeout) {
    if (!then_) return;
    auto then = std::move(then_);
    then_ = nullptr;
    then(timeout);
  }
  std::unique_ptr<Work> first_;
  std::function<void(Seconds)> then_;
};

}  // namespace distbench
