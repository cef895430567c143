#include "benchmarks/zero/step.hpp"

#include "core/device/buffer.hpp"
#include "core/device/half.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace distbench::zero {
void store_value(DType t, std::byte* at, std::size_t i, float value) {
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
    default:  // float32: ZeRO admits nothing else
      std::memcpy(at + i * 4, &value, 4);
      return;
  }
}

float load_value(DType t, const std::byte* at, std::size_t i) {
  std::uint16_t h = 0;
  float f = 0;
  switch (t) {
    case DType::bfloat16: std::memcpy(&h, at + i * 2, 2); return bfloat16_to_float(h);
    case DType::float16: std::memcpy(&h, at + i * 2, 2); return half_to_float(h);
    default:  // float32
      std::memcpy(&f, at + i * 4, 4);
      return f;
  }
}

float gradient_value(std::uint64_t i, int rank, int step) {
  return static_cast<float>(
      static_cast<int>((i * 7 + static_cast<std::uint64_t>(rank) * 2 + static_cast<std::uint64_t>(step) * 5) % 9) - 4);
}

float initial_weight(std::uint64_t i) { return 0.5f + static_cast<float>(i % 7) * 0.125f; }

ZeroStep::ZeroStep(Communicator& comm, StepConfig config, Device* device, DenseMath* math)
    : comm_(comm), config_(std::move(config)), device_(device), math_(math) {
  const DType t = config_.type;
  if (t != DType::bfloat16 && t != DType::float16 && t != DType::float32) {
    throw usage_error(fmt::format("ZeRO parameters are bfloat16, float16 or float32, not {}", name(t)));
  }
  const auto n = static_cast<std::size_t>(comm.size());
  me_ = static_cast<std::size_t>(comm.rank());
  config_.adam.grad_scale = 1.0f / static_cast<float>(n);
  segments_ = stage_segments(config_.stage, config_.layers, config_.bucket, n);
  place_segments();
  allocate_arrays();
  for (std::size_t b = 0; b < segments_.size(); ++b) plan_owned_run(b);
  write_initial_weights();
}

void ZeroStep::place_segments() {
  // Where each segment sits in the full buffers (stages 0-2; stage 0 unpadded) and in the sharded ones.
  std::size_t full = 0, sharded = 0;
  for (const Segment& s : segments_) {
    slot_.push_back(full);
    shard_at_.push_back(sharded);
    full += config_.stage == Stage::s0 ? s.part.elements : s.part.padded();
    sharded += s.part.shard;
  }
  full_elements_ = full;
  sharded_elements_ = sharded;
  state_elements_ = config_.stage == Stage::s0 ? full : sharded;
}

void ZeroStep::allocate_arrays() {
  const Stage stage = config_.stage;
  const std::size_t g = size_of(config_.type), sharded = sharded_elements_;
  std::size_t param_elements = full_elements_, grad_elements = full_elements_, staging_elements = 0,
              gathered_elements = 0;
  if (stage == Stage::s2 || stage == Stage::s3) {
    grad_elements = sharded;
    staging_elements = largest_padded(segments_);
  }
  if (stage == Stage::s3) {
    param_elements = sharded;
    gathered_elements = largest_padded(segments_);
  }
  const auto array = [this](std::size_t bytes) { return StepArray(bytes, device_, math_); };
  params_ = array(param_elements * g);
  grads_ = array(grad_elements * g);
  staging_ = array(staging_elements * g);
  gathered_ = array(gathered_elements * g);
  // fp32 keeps no master copy: the master weights are the parameters.
  master_ = array(config_.type == DType::float32 ? 0 : state_elements_ * sizeof(float));
  m_ = array(state_elements_ * sizeof(float));
  v_ = array(state_elements_ * sizeof(float));
}

void ZeroStep::plan_owned_run(std::size_t b) {
  const Stage stage = config_.stage;
  const Segment& s = segments_[b];
  if (stage == Stage::s0) {
    runs_.push_back({s.begin, s.part.elements, slot_[b], slot_[b], slot_[b]});
    return;
  }
  const Range own = s.part.owned(me_);
  if (own.size() == 0) return;
  Run r{s.begin + own.begin, own.size(), shard_at_[b], 0, shard_at_[b]};
  r.param = stage == Stage::s3 ? shard_at_[b] : slot_[b] + own.begin;
  if (stage == Stage::s1) {
    // The reduced gradients of the owned block: where the backend leaves them (an in-place reduce-scatter may
    // leave them at the start of the bucket).
    r.grad = slot_[b] + own.begin;
    if (config_.zero1 == Zero1Reduce::reduce_scatter) {
      const CollectiveCall call{Collective::reduce_scatter,
                                grads_at(slot_[b]),
                                grads_at(slot_[b] + me_ * s.part.shard),
                                s.part.shard,
                                config_.type,
                                ReduceOp::sum,
                                0};
      r.grad = comm_.result_at(call).byte_offset / size_of(config_.type);
    }
  }
  runs_.push_back(r);
}

void ZeroStep::write_initial_weights() {
  // The parameters every rank holds, and the owned master weights.
  const DType t = config_.type;
  const bool fp32 = t == DType::float32;
  std::byte* params = params_.host();
  auto* master = reinterpret_cast<float*>(master_.host());
  if (config_.stage != Stage::s3) {
    for (std::size_t b = 0; b < segments_.size(); ++b) {
      for (std::size_t k = 0; k < segments_[b].part.elements; ++k) {
        store_value(t, params, slot_[b] + k, initial_weight(segments_[b].begin + k));
      }
    }
  }
  for (const Run& r : runs_) {
    for (std::size_t k = 0; k < r.count; ++k) {
      if (config_.stage == Stage::s3) store_value(t, params, r.param + k, initial_weight(r.global + k));
      if (!fp32) master[r.state + k] = initial_weight(r.global + k);
    }
  }
  params_.upload(0, params_.bytes());
  master_.upload(0, master_.bytes());
  if (config_.gradients == Gradients::zero) {  // nothing reads the host copies again
    params_.drop_host_copy();
    master_.drop_host_copy();
  }
}

void ZeroStep::collective(Collective c, BufferRef send, BufferRef recv, std::size_t count, Seconds timeout) {
  const CollectiveCall call{c, send, recv, count, config_.type, ReduceOp::sum, 0};
  comm_.start(call)->wait(timeout);
}

void ZeroStep::make_gradients(StepArray& to, std::size_t at, const Segment& s) {
  const int rank = comm_.rank();
  const std::size_t slot = config_.stage == Stage::s0 ? s.part.elements : s.part.padded();
  const std::size_t g = size_of(config_.type);
  std::byte* out = to.host() + at * g;
  for (std::size_t k = 0; k < s.part.elements; ++k) {
    store_value(config_.type, out, k, gradient_value(s.begin + k, rank, next_step_));
  }
  for (std::size_t k = s.part.elements; k < slot; ++k) store_value(config_.type, out, k, 0.0f);
  to.upload(at * g, slot * g);
}

void ZeroStep::gather_layer(std::size_t l, Seconds timeout) {
  collective(Collective::allgather, params_at(shard_at_[l]), {&gathered_.buffer(), 0}, segments_[l].part.shard,
             timeout);
}

void ZeroStep::forward_gathers(Seconds timeout) {
  if (config_.stage != Stage::s3) return;
  for (std::size_t l = 0; l < segments_.size(); ++l) {
    gather_layer(l, timeout);
  }
}

void ZeroStep::backward_gathers(Seconds timeout) {
  if (config_.stage != Stage::s3) return;
  for (std::size_t l = segments_.size(); l-- > 0;) {
    gather_layer(l, timeout);
  }
}

void ZeroStep::reduce(Seconds timeout) {
  const bool exact = config_.gradients == Gradients::exact;
  const Stage stage = config_.stage;
  // Last segment first, as the backward makes them.
  if (stage == Stage::s2 || stage == Stage::s3) {
    for (std::size_t b = segments_.size(); b-- > 0;) {
      const Segment& s = segments_[b];
      if (exact) make_gradients(staging_, 0, s);
      collective(Collective::reduce_scatter, {&staging_.buffer(), 0}, grads_at(shard_at_[b]), s.part.shard, timeout);
    }
    return;
  }
  if (exact) {
    for (std::size_t b = 0; b < segments_.size(); ++b) make_gradients(grads_, slot_[b], segments_[b]);
  }
  for (std::size_t b = segments_.size(); b-- > 0;) {
    const Segment& s = segments_[b];
    if (stage == Stage::s1 && config_.zero1 == Zero1Reduce::reduce_scatter) {
      collective(Collective::reduce_scatter, grads_at(slot_[b]), grads_at(slot_[b] + me_ * s.part.shard), s.part.shard,
                 timeout);
    } else {
      const std::size_t count = stage == Stage::s0 ? s.part.elements : s.part.padded();
      collective(Collective::allreduce, grads_at(slot_[b]), grads_at(slot_[b]), count, timeout);
    }
  }
}

void ZeroStep::update() {
  const DType t = config_.type;
  const std::size_t g = size_of(t);
  const bool fp32 = t == DType::float32;
  auto* m = reinterpret_cast<float*>(m_.data());
  auto* v = reinterpret_cast<float*>(v_.data());
  for (const Run& r : runs_) {
    std::byte* param = params_.data() + r.param * g;
    float* master = fp32 ? reinterpret_cast<float*>(param) : reinterpret_cast<float*>(master_.data()) + r.state;
    const std::byte* grad = grads_.data() + r.grad * g;
    void* out = fp32 ? nullptr : param;
    if (math_ != nullptr) {
      const AdamStep step{config_.adam, next_step_};
      math_->mixed_adam(step, t, grad, master, m + r.state, v + r.state, out, r.count);
    } else {
      numerics::adam_update(config_.adam, next_step_, t, grad, master, m + r.state, v + r.state, out, r.count);
    }
  }
  if (math_ != nullptr) math_->synchronize();
  ++next_step_;
}

void ZeroStep::gather(Seconds timeout) {
  if (config_.stage != Stage::s1 && config_.stage != Stage::s2) return;
  // In place: this rank's shard sits at its block of each bucket.
  for (std::size_t b = 0; b < segments_.size(); ++b) {
    const std::size_t shard = segments_[b].part.shard;
    collective(Collective::allgather, params_at(slot_[b] + me_ * shard), params_at(slot_[b]), shard, timeout);
  }
}

void ZeroStep::to_host() {
  params_.download();
  master_.download();
  m_.download();
  v_.download();
}

void ZeroStep::run(Seconds timeout) {
  forward_gathers(timeout);
  backward_gathers(timeout);
  reduce(timeout);
  update();
  gather(timeout);
}

std::vector<StepCall> ZeroStep::calls() const {
  std::vector<StepCall> out;
  const bool in_place = config_.stage == Stage::s0 || config_.stage == Stage::s1;  // s2: rs from the bucket buffer
  const auto add = [&out](Collective c, std::size_t count, int times, bool in_place) {
    for (StepCall& call : out) {
      if (call.collective == c && call.count == count && call.in_place == in_place) {
        call.times += times;
        return;
      }
    }
    out.push_back({c, count, times, in_place});
  };
  for (const Segment& s : segments_) {
    switch (config_.stage) {
      case Stage::s0: add(Collective::allreduce, s.part.elements, 1, true); break;
      case Stage::s1:
        if (config_.zero1 == Zero1Reduce::reduce_scatter) {
          add(Collective::reduce_scatter, s.part.shard, 1, in_place);
        } else {
          add(Collective::allreduce, s.part.padded(), 1, in_place);
        }
        add(Collective::allgather, s.part.shard, 1, true);
        break;
      case Stage::s2:
        add(Collective::reduce_scatter, s.part.shard, 1, false);
        add(Collective::allgather, s.part.shard, 1, true);
        break;
      case Stage::s3:
        add(Collective::allgather, s.part.shard, 2, false);
        add(Collective::reduce_scatter, s.part.shard, 1, false);
        break;
    }
  }
  return out;
}

std::uint64_t ZeroStep::state_bytes() const {
  return params_.bytes() + grads_.bytes() + master_.bytes() + m_.bytes() + v_.bytes();
}

std::uint64_t ZeroStep::buffer_bytes() const { return staging_.bytes() + gathered_.bytes(); }

std::size_t ZeroStep::updated_elements() const {
  std::size_t n = 0;
  for (const Run& r : runs_) n += r.count;
  return n;
}

float ZeroStep::master_at(std::size_t run, std::size_t k) const {
  const Run& r = runs_[run];
  if (config_.type == DType::float32) return param_at(run, k);
  return host_floats(master_)[r.state + k];
}

float ZeroStep::param_at(std::size_t run, std::size_t k) const {
  return load_value(config_.type, params_.host(), runs_[run].param + k);
}

float ZeroStep::held_param(std::uint64_t i) const {
  // Buckets are of equal size but the last.
  const std::size_t b = static_cast<std::size_t>(i / segments_.front().part.elements);
  return load_value(config_.type, params_.host(), slot_[b] + (i - segments_[b].begin));
}

std::uint64_t ZeroStep::parameters() const {
  std::uint64_t n = 0;
  for (const Segment& s : segments_) n += s.part.elements;
  return n;
}

std::vector<std::uint64_t> ZeroStep::owned() const {
  std::vector<std::uint64_t> out;
  for (const Run& r : runs_) {
    for (std::size_t k = 0; k < r.count; ++k) out.push_back(r.global + k);
  }
  return out;
}

std::vector<float> ZeroStep::owned_master() const {
  if (config_.type == DType::float32) return owned_params();
  std::vector<float> out;
  for (const Run& r : runs_) {
    const float* master = host_floats(master_) + r.state;
    out.insert(out.end(), master, master + r.count);
  }
  return out;
}

std::vector<float> ZeroStep::owned_params() const {
  std::vector<float> out;
  for (const Run& r : runs_) {
    for (std::size_t k = 0; k < r.count; ++k) out.push_back(load_value(config_.type, params_.host(), r.param + k));
  }
  return out;
}

std::vector<float> ZeroStep::full_params() const {
  std::vector<float> out;
  if (config_.stage == Stage::s3) return out;
  for (std::size_t b = 0; b < segments_.size(); ++b) {
    for (std::size_t k = 0; k < segments_[b].part.elements; ++k) {
      out.push_back(load_value(config_.type, params_.host(), slot_[b] + k));
    }
  }
  return out;
}

}  // namespace distbench::zero
