#include "benchmarks/zero/step_ledger.hpp"

#include "benchmarks/zero/verify.hpp"
#include "core/comm/then_work.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

namespace distbench::zero {

std::uint64_t ring_bytes_sent(const CollectiveCall& call, std::size_t ranks) {
  const std::uint64_t g = size_of(call.dtype), c = call.count, others = ranks - 1;
  switch (call.collective) {
    case Collective::allreduce: return 2 * ((c + ranks - 1) / ranks) * others * g;  // reduce-scatter + all-gather
    case Collective::reduce_scatter:
    case Collective::allgather: return c * others * g;
    default: return 0;  // the step makes no other collective
  }
}

StepLedger::StepLedger(Communicator& real, const StepConfig& config, DenseMath* math)
    : ForwardingCommunicator(real), config_(config), math_(math) {
  if (config_.stage == Stage::s3) layers_ = layer_segments(config_.layers, static_cast<std::size_t>(real.size()));
}

void StepLedger::run(const CollectiveCall& call, const ArmedStep& step) {
  bytes_ += ring_bytes_sent(call, static_cast<std::size_t>(real().size()));
  real().run(call, step);
}

std::unique_ptr<Work> StepLedger::start(const CollectiveCall& call) {
  bytes_ += ring_bytes_sent(call, static_cast<std::size_t>(real().size()));
  if (call.collective != Collective::allgather || config_.stage != Stage::s3 || config_.gradients != Gradients::exact) {
    return real().start(call);
  }
  const std::uint64_t index = gathers_++;
  return std::make_unique<ThenWork>(real().start(call), [this, call, index](Seconds) { check_gathered(call, index); });
}

std::vector<float> StepLedger::gathered_values(const CollectiveCall& call) const {
  // Whatever layer it was: its count says how much, read as the step's type.
  const std::size_t elements = call.count * static_cast<std::size_t>(real().size()), g = size_of(config_.type);
  std::vector<std::byte> bytes(elements * g);
  const BufferRef at = real().result_at(call);
  if (math_ != nullptr) {
    math_->download(bytes.data(), at.data(), bytes.size());
  } else {
    std::memcpy(bytes.data(), at.data(), bytes.size());
  }
  std::vector<float> out(elements);
  for (std::size_t k = 0; k < elements; ++k) out[k] = load_value(config_.type, bytes.data(), k);
  return out;
}

void StepLedger::check_gathered(const CollectiveCall& call, std::uint64_t index) {
  const std::uint64_t per_step = 2 * layers_.size(), at = index % per_step;
  const int steps_before = static_cast<int>(index / per_step);
  const bool forward = at < layers_.size();
  const Segment& layer = layers_[forward ? at : per_step - 1 - at];
  const std::vector<float> got = gathered_values(call);
  const std::vector<float> expected =
      reference_params(layer.begin, layer.part.elements, real().size(), steps_before, config_.type, config_.adam);
  std::uint64_t differ = 0;
  std::size_t first = 0;
  for (std::size_t k = 0; k < std::max(layer.part.padded(), got.size()); ++k) {
    const float want = k < expected.size() ? expected[k] : 0.0f;  // the padding stays zero
    const float have = k < got.size() ? got[k] : std::nanf("");
    if (std::memcmp(&want, &have, sizeof(float)) == 0) continue;
    if (differ++ == 0) first = k;
  }
  if (differ == 0) return;
  if (gather_mismatch_) {
    gather_mismatch_->count += differ;
    return;
  }
  gather_mismatch_ = Mismatch{
      fmt::format("parameter gathered for the {} (step {})", forward ? "forward" : "backward", steps_before + 1),
      layer.begin + first, first < got.size() ? got[first] : std::nanf(""),
      first < expected.size() ? expected[first] : 0.0f, differ};
}

}  // namespace distbench::zero
