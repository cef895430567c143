#include "benchmarks/zero/step.hpp"

#include "core/buffer.hpp"
#include "core/error.hpp"
#include "core/half.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace distbench::zero {
namespace {

void store(DType t, std::byte* at, std::size_t i, float value) {
  switch (t) {
    case DType::bfloat16: {
      const std::uint16_t b = float_to_bfloat16(value);
      std::memcpy(at + i * 2, &b, 2);
      return;
    }
    case DType::float16: {
      const std::uint16_t h = float_to_half(value);
      std::memcpy(at + i * 2, &h, 2);
      return;
    }
    default:  // float32: the constructor admits nothing else
      std::memcpy(at + i * 4, &value, 4);
      return;
  }
}

float load(DType t, const std::byte* at, std::size_t i) {
  std::uint16_t h = 0;
  float f = 0;
  switch (t) {
    case DType::bfloat16:
      std::memcpy(&h, at + i * 2, 2);
      return bfloat16_to_float(h);
    case DType::float16:
      std::memcpy(&h, at + i * 2, 2);
      return half_to_float(h);
    default:  // float32
      std::memcpy(&f, at + i * 4, 4);
      return f;
  }
}

}  // namespace

float gradient_value(std::uint64_t i, int rank, int step) {
  return static_cast<float>(
      static_cast<int>((i * 7 + static_cast<std::uint64_t>(rank) * 3 + static_cast<std::uint64_t>(step) * 5) % 9) - 4);
}

float initial_weight(std::uint64_t i) { return 0.5f + static_cast<float>(i % 7) * 0.125f; }

ZeroStep::ZeroStep(Communicator& comm, Stage stage, DType type, std::vector<std::size_t> layers, AdamConfig adam,
                   Zero1Reduce zero1)
    : comm_(comm), stage_(stage), type_(type), layers_(std::move(layers)), adam_(adam), zero1_(zero1) {
  const auto n = static_cast<std::size_t>(comm.size());
  const auto me = static_cast<std::size_t>(comm.rank());
  psi_ = std::accumulate(layers_.begin(), layers_.end(), std::size_t{0});
  flat_ = partition(psi_, n);
  per_layer_ = layer_partitions(layers_, n);
  adam_.grad_scale = 1.0f / static_cast<float>(n);
  if (type_ != DType::bfloat16 && type_ != DType::float16 && type_ != DType::float32) {
    throw usage_error(fmt::format("ZeRO parameters are bfloat16, float16 or float32, not {}", name(type_)));
  }
  const std::size_t g = size_of(type_);
  switch (stage_) {
    case Stage::s0:
      shards_.push_back({0, psi_, 0});
      shard_elements_ = psi_;
      break;
    case Stage::s1:
    case Stage::s2: {
      const Range own = flat_.owned(me);
      shards_.push_back({own.begin, own.size(), 0});
      shard_elements_ = flat_.shard;
      break;
    }
    case Stage::s3: {
      std::uint64_t layer_begin = 0;
      for (std::size_t l = 0; l < layers_.size(); ++l) {
        const Range own = per_layer_[l].owned(me);
        shards_.push_back({layer_begin + own.begin, own.size(), shard_elements_});
        shard_elements_ += per_layer_[l].shard;
        layer_begin += layers_[l];
      }
      break;
    }
  }
  params_.assign((stage_ == Stage::s3 ? shard_elements_ : flat_.padded()) * g, std::byte{0});
  master_.assign(shard_elements_, 0.0f);
  m_.assign(shard_elements_, 0.0f);
  v_.assign(shard_elements_, 0.0f);
  grads_.assign(shard_elements_ * g, std::byte{0});
  if (stage_ != Stage::s3) {
    for (std::size_t i = 0; i < psi_; ++i) store(type_, params_.data(), i, initial_weight(i));
  }
  for (const Shard& s : shards_) {
    for (std::size_t k = 0; k < s.count; ++k) {
      master_[s.local + k] = initial_weight(s.global + k);
      if (stage_ == Stage::s3) store(type_, params_.data(), s.local + k, initial_weight(s.global + k));
    }
  }
}

void ZeroStep::run_collective(Collective c, void* send, void* recv, std::size_t count, DType t, Seconds timeout) {
  const std::size_t elem = size_of(t);
  const auto shape = buffer_shape(c, count, comm_.size(), comm_.rank());
  ExternalBuffer sb(send, shape.send_count * elem), rb(recv, shape.recv_count * elem);
  CollectiveCall call{c, {&sb, 0}, {&rb, 0}, count, t, ReduceOp::sum, 0};
  comm_.start(call)->wait(timeout);
}

void ZeroStep::reduce_gradients(int step, Seconds timeout) {
  const std::size_t g = size_of(type_);
  const DType t = type_;
  const int me = comm_.rank();
  if (stage_ == Stage::s3) {
    // Backward, last layer first: gather the layer's parameters, make its gradients, reduce-scatter them.
    std::vector<std::uint64_t> begin(layers_.size(), 0);
    for (std::size_t l = 1; l < layers_.size(); ++l) begin[l] = begin[l - 1] + layers_[l - 1];
    for (std::size_t l = layers_.size(); l-- > 0;) {
      const Partition& part = per_layer_[l];
      std::vector<std::byte> gathered(part.padded() * g);
      run_collective(Collective::allgather, params_.data() + shards_[l].local * g, gathered.data(), part.shard, t,
                     timeout);
      std::vector<std::byte> full(part.padded() * g, std::byte{0});
      for (std::size_t k = 0; k < layers_[l]; ++k) store(type_, full.data(), k, gradient_value(begin[l] + k, me, step));
      run_collective(Collective::reduce_scatter, full.data(), grads_.data() + shards_[l].local * g, part.shard, t,
                     timeout);
    }
    return;
  }
  std::vector<std::byte> full(flat_.padded() * g, std::byte{0});
  for (std::size_t i = 0; i < psi_; ++i) store(type_, full.data(), i, gradient_value(i, me, step));
  if (stage_ == Stage::s0 || (stage_ == Stage::s1 && zero1_ == Zero1Reduce::allreduce)) {
    std::vector<std::byte> reduced(full.size());
    run_collective(Collective::allreduce, full.data(), reduced.data(), flat_.padded(), t, timeout);
    // This rank keeps the reduced gradients of what it updates.
    const std::size_t from = stage_ == Stage::s0 ? 0 : shards_.front().global;
    std::memcpy(grads_.data(), reduced.data() + from * g, shards_.front().count * g);
    return;
  }
  run_collective(Collective::reduce_scatter, full.data(), grads_.data(), flat_.shard, t, timeout);
}

void ZeroStep::update(int step) {
  const std::size_t g = size_of(type_);
  for (const Shard& s : shards_) {
    std::byte* param = params_.data() + (stage_ == Stage::s3 ? s.local : s.global) * g;
    adam_update(adam_, step, type_, grads_.data() + s.local * g, master_.data() + s.local, m_.data() + s.local,
                v_.data() + s.local, param, s.count);
  }
}

void ZeroStep::gather_params(Seconds timeout) {
  if (stage_ != Stage::s1 && stage_ != Stage::s2) return;
  // In place: this rank's shard sits at its block of the full parameters.
  const std::size_t g = size_of(type_);
  const DType t = type_;
  ExternalBuffer all(params_.data(), params_.size());
  CollectiveCall call{Collective::allgather,
                      {&all, static_cast<std::size_t>(comm_.rank()) * flat_.shard * g},
                      {&all, 0},
                      flat_.shard,
                      t,
                      ReduceOp::sum,
                      0};
  comm_.start(call)->wait(timeout);
}

void ZeroStep::run(int step, Seconds timeout) {
  if (stage_ == Stage::s3) {
    // Forward: each layer's parameters gathered before use and dropped after.
    const std::size_t g = size_of(type_);
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      std::vector<std::byte> gathered(per_layer_[l].padded() * g);
      run_collective(Collective::allgather, params_.data() + shards_[l].local * g, gathered.data(), per_layer_[l].shard,
                     type_, timeout);
    }
  }
  reduce_gradients(step, timeout);
  update(step);
  gather_params(timeout);
}

std::vector<std::uint64_t> ZeroStep::owned() const {
  std::vector<std::uint64_t> out;
  for (const Shard& s : shards_) {
    for (std::size_t k = 0; k < s.count; ++k) out.push_back(s.global + k);
  }
  return out;
}

std::vector<float> ZeroStep::owned_master() const {
  std::vector<float> out;
  for (const Shard& s : shards_)
    out.insert(out.end(), master_.begin() + static_cast<std::ptrdiff_t>(s.local),
               master_.begin() + static_cast<std::ptrdiff_t>(s.local + s.count));
  return out;
}

std::vector<float> ZeroStep::owned_params() const {
  std::vector<float> out;
  for (const Shard& s : shards_) {
    for (std::size_t k = 0; k < s.count; ++k) {
      out.push_back(load(type_, params_.data(), (stage_ == Stage::s3 ? s.local : s.global) + k));
    }
  }
  return out;
}

std::vector<float> ZeroStep::full_params() const {
  std::vector<float> out;
  if (stage_ == Stage::s3) return out;
  for (std::size_t i = 0; i < psi_; ++i) out.push_back(load(type_, params_.data(), i));
  return out;
}

}  // namespace distbench::zero
