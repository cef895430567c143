// The mutation suite of the ZeRO step: each deliberate mistake is made by a communicator that forwards every call of
// the step to a real one and gets one kind of call wrong (the step itself carries no test seam). zero --check must
// catch each of them.
#pragma once

#include "benchmarks/zero/step.hpp"
#include "core/comm/communicator.hpp"
#include "core/comm/forwarding_communicator.hpp"
#include "core/comm/then_work.hpp"
#include "core/device/dense_math.hpp"

#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace distbench::zero {

enum class ZeroMutant {
  no_grad_scale,            // the 1/N of the averaged gradient left out: every reduced gradient N times too large
  doubled_grad_scale,       // 2/N: every reduced gradient twice too large
  doubled_reduction,        // every allreduce of the gradients run twice (stages 0-1)
  skipped_bucket,           // the last bucket's gradients (the first reduced in a step) never reduced
  skipped_forward_gather,   // stage 3: the last layer's forward all-gather left out
  skipped_backward_gather,  // stage 3: the first layer's backward all-gather left out
  wrong_gather_block,       // stages 1-2: each rank sends the next rank's block in the parameter all-gather
};

inline std::string_view name(ZeroMutant m) {
  switch (m) {
    case ZeroMutant::no_grad_scale: return "no_grad_scale";
    case ZeroMutant::doubled_grad_scale: return "doubled_grad_scale";
    case ZeroMutant::doubled_reduction: return "doubled_reduction";
    case ZeroMutant::skipped_bucket: return "skipped_bucket";
    case ZeroMutant::skipped_forward_gather: return "skipped_forward_gather";
    case ZeroMutant::skipped_backward_gather: return "skipped_backward_gather";
    case ZeroMutant::wrong_gather_block: return "wrong_gather_block";
  }
  return "?";
}

// Already complete.
class DoneWork final : public Work {
 public:
  bool done() override { return true; }
  void wait(Seconds) override {}
};

class ZeroMutantCommunicator final : public ForwardingCommunicator {
 public:
  // `segments`: the step's buckets (its layers in stage 3), which a step reduces once each and gathers once (stages
  // 1-2) or twice (stage 3) each, so that the k-th call of its kind in a step is known. `math`: how the step's
  // arrays are reached on a device (null: host memory).
  ZeroMutantCommunicator(Communicator& real, ZeroMutant mutant, std::size_t segments, DenseMath* math = nullptr)
      : ForwardingCommunicator(real), mutant_(mutant), segments_(segments), math_(math) {}

  std::unique_ptr<Work> start(const CollectiveCall& call) override {
    if (call.collective == Collective::allgather) return start_gather(call);
    return start_reduction(call);
  }

 private:
  std::unique_ptr<Work> start_gather(CollectiveCall call) {
    const std::size_t k = gathers_++ % (2 * segments_);
    if (mutant_ == ZeroMutant::skipped_forward_gather && k == segments_ - 1) return std::make_unique<DoneWork>();
    if (mutant_ == ZeroMutant::skipped_backward_gather && k == 2 * segments_ - 1) {
      return std::make_unique<DoneWork>();
    }
    if (mutant_ == ZeroMutant::wrong_gather_block) {
      const auto next = static_cast<std::size_t>((rank() + 1) % size());
      call.send = call.recv.at(next * call.count * size_of(call.dtype));
    }
    return real().start(call);
  }

  std::unique_ptr<Work> start_reduction(const CollectiveCall& call) {
    const std::size_t k = reductions_++ % segments_;
    switch (mutant_) {
      case ZeroMutant::skipped_bucket:
        if (k == 0) return std::make_unique<DoneWork>();
        break;
      case ZeroMutant::doubled_reduction:
        if (call.collective != Collective::allreduce) break;
        return std::make_unique<ThenWork>(real().start(call),
                                          [this, call](Seconds timeout) { real().start(call)->wait(timeout); });
      case ZeroMutant::no_grad_scale:
      case ZeroMutant::doubled_grad_scale: {
        const float factor = mutant_ == ZeroMutant::no_grad_scale ? static_cast<float>(size()) : 2.0f;
        return std::make_unique<ThenWork>(real().start(call), [this, call, factor](Seconds) { scale(call, factor); });
      }
      default: break;
    }
    return real().start(call);
  }

  // Multiplies this rank's result of `call` by `factor`.
  void scale(const CollectiveCall& call, float factor) {
    const BufferRef at = real().result_at(call);
    const std::size_t bytes = call.count * size_of(call.dtype);
    std::vector<std::byte> host(bytes);
    if (math_ != nullptr) {
      math_->download(host.data(), at.data(), bytes);
    } else {
      std::memcpy(host.data(), at.data(), bytes);
    }
    for (std::size_t i = 0; i < call.count; ++i) {
      store_value(call.dtype, host.data(), i, factor * load_value(call.dtype, host.data(), i));
    }
    if (math_ != nullptr) {
      math_->upload(at.data(), host.data(), bytes);
      math_->synchronize();
    } else {
      std::memcpy(at.data(), host.data(), bytes);
    }
  }

  ZeroMutant mutant_;
  std::size_t segments_;
  DenseMath* math_;
  std::size_t gathers_ = 0, reductions_ = 0;
};

}  // namespace distbench::zero
