#include "benchmarks/train/data_parallel.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace distbench::train {
namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

OptimizerState::OptimizerState(const Optimizer& optimizer, Mlp& model) : optimizer_(optimizer), model_(model) {
  const std::size_t bytes = model.parameters() * sizeof(float);
  const std::vector<float> zeros(model.parameters(), 0.0f);
  a_ = model.device().allocate(bytes);
  model.math().upload(a_->data(), zeros.data(), bytes);
  if (optimizer.kind == Optimizer::Kind::adam) {
    b_ = model.device().allocate(bytes);
    model.math().upload(b_->data(), zeros.data(), bytes);
  }
}

void OptimizerState::step(int step) { this->step(step, 0, 0, model_.parameters()); }

void OptimizerState::step(int step, std::size_t param_at, std::size_t grad_at, std::size_t n) {
  DenseMath& math = model_.math();
  float* params = model_.params() + param_at;
  const float* grads = model_.grads() + grad_at;
  auto* a = static_cast<float*>(a_->data()) + param_at;
  if (optimizer_.kind == Optimizer::Kind::sgd) {
    math.sgd(params, grads, a, n, optimizer_.lr, optimizer_.momentum);
    return;
  }
  AdamStep adam{optimizer_.adam, step};
  adam.lr = optimizer_.lr;
  adam.grad_scale = 1.0f;  // the backward scaled each rank's gradients by its share of the global batch
  math.adam(adam, grads, params, a, static_cast<float*>(b_->data()) + param_at, n);
}

bool DataParallel::Flight::done() const {
  for (const auto& w : work) {
    if (!w->done()) return false;
  }
  return true;
}

DataParallel::DataParallel(Communicator& comm, Mlp& model, const DataParallelConfig& config)
    : comm_(comm),
      model_(model),
      global_batch_(config.global_batch),
      optimizer_(config.optimizer, model),
      stage_(config.zero_stage),
      wire_(config.wire),
      ranks_(static_cast<std::size_t>(comm.size())),
      me_(static_cast<std::size_t>(comm.rank())) {
  if (stage_ < 0 || stage_ > 3) {
    throw usage_error(fmt::format("ZeRO stage {} does not exist: use 0, 1, 2 or 3", stage_));
  }
  if (wire_ != DType::float32 && wire_ != DType::bfloat16) {
    throw usage_error(fmt::format("gradients travel as float32 or bfloat16, not {}", name(wire_)));
  }
  if (wire_ == DType::bfloat16) wire_buffer_ = model.device().allocate(model.parameters() * sizeof(std::uint16_t));
  // Buckets by the gradients' own bytes (float32), as PyTorch DDP caps them before a compression hook turns them
  // into bfloat16: the same buckets whatever travels.
  buckets_ = assign_buckets(model.tensors(), sizeof(float), config.bucket_bytes);
  bucket_of_.resize(model.tensors().size());
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    std::size_t first = model.parameters();
    for (std::size_t k : buckets_[b].tensors) {
      bucket_of_[k] = b;
      first = std::min(first, model.tensor_offset(k));
    }
    first_of_.push_back(first);
    block_of_.push_back(buckets_[b].elements / ranks_);
  }
}

void DataParallel::begin() {
  model_.math().synchronize();
  model_.math().reset_marks();
  began_ = std::chrono::steady_clock::now();
}

double DataParallel::since_began() const { return since(began_); }

BufferRef DataParallel::wire_at(std::size_t element) const {
  if (wire_ == DType::bfloat16) return {wire_buffer_.get(), element * sizeof(std::uint16_t)};
  return {&model_.grad_buffer(), element * sizeof(float)};
}

void DataParallel::start_reduce(std::size_t b) {
  if (observer_ != nullptr) observer_->before_reduce(b);
  Flight& f = reduce_[b];
  f.start = since_began();
  const std::size_t first = first_of_[b], n = buckets_[b].elements, block = block_of_[b];
  if (wire_ == DType::bfloat16) {  // queued before the collectives, which the backend orders after it
    model_.math().to_bfloat16(model_.grads() + first, static_cast<std::uint16_t*>(wire_at(first).data()), n);
  }
  const auto call = [&](Collective c, BufferRef send, BufferRef recv, std::size_t count) {
    f.work.push_back(reduce_comm_->start({c, send, recv, count, wire_, ReduceOp::sum, 0}));
  };
  if (stage_ < 2 || block == 0) {
    call(Collective::allreduce, wire_at(first), wire_at(first), n);
    return;
  }
  call(Collective::reduce_scatter, wire_at(first), wire_at(first + me_ * block), block);
  if (n > ranks_ * block) {
    const std::size_t tail = first + ranks_ * block;
    call(Collective::allreduce, wire_at(tail), wire_at(tail), n - ranks_ * block);
  }
}

std::size_t DataParallel::reduced_block_at(std::size_t b) const {
  const std::size_t first = first_of_[b], block = block_of_[b];
  if (stage_ < 2) return first + me_ * block;
  // Where the backend leaves the owned block's sums (an in-place reduce-scatter may leave them at the start).
  const CollectiveCall rs{
      Collective::reduce_scatter, wire_at(first), wire_at(first + me_ * block), block, wire_, ReduceOp::sum, 0};
  return comm_.result_at(rs).byte_offset / size_of(wire_);
}

// bfloat16 sums back into the float32 gradients the update reads: the owned block (at its own place) and the tail
// with ZeRO, the whole bucket without.
void DataParallel::finish_reduce(std::size_t b) {
  if (wire_ != DType::bfloat16) return;
  DenseMath& math = model_.math();
  const std::size_t first = first_of_[b], n = buckets_[b].elements, block = block_of_[b];
  const auto back = [&](std::size_t from, std::size_t to, std::size_t count) {
    if (count > 0)
      math.from_bfloat16(static_cast<const std::uint16_t*>(wire_at(from).data()), model_.grads() + to, count);
  };
  if (stage_ == 0) {
    back(first, first, n);
    return;
  }
  back(reduced_block_at(b), first + me_ * block, block);
  back(first + ranks_ * block, first + ranks_ * block, n - ranks_ * block);
}

void DataParallel::start_gather(std::size_t b, Flight& f) {
  f.start = since_began();
  const std::size_t first = first_of_[b], block = block_of_[b];
  if (block == 0) return;  // a bucket smaller than the ranks: all tail, reduced and updated everywhere
  f.work.push_back(comm_.start({Collective::allgather, params_at(first + me_ * block), params_at(first), block,
                                DType::float32, ReduceOp::sum, 0}));
}

void DataParallel::wait(Flight& f, Seconds timeout) {
  for (auto& w : f.work) w->wait(timeout);
  if (f.end == 0) f.end = since_began();
}

void DataParallel::progress() {
  for (Flight& f : reduce_) {
    if (!f.work.empty() && f.end == 0 && f.done()) f.end = since_began();
  }
}

std::vector<ReducedPart> DataParallel::reduced_parts(std::size_t b) const {
  const std::size_t first = first_of_[b], n = buckets_[b].elements, block = block_of_[b];
  if (stage_ == 0) return {{first, first, n}};
  std::vector<ReducedPart> parts;
  if (block > 0) {  // bfloat16 sums were converted back to the block's own place
    const std::size_t mine = first + me_ * block;
    parts.push_back({mine, wire_ == DType::bfloat16 ? mine : reduced_block_at(b), block});
  }
  const std::size_t tail = first + ranks_ * block;
  if (n > ranks_ * block) parts.push_back({tail, tail, n - ranks_ * block});
  return parts;
}

void DataParallel::update() {
  ++steps_;
  if (stage_ == 0) {
    optimizer_.step(steps_);
    return;
  }
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    for (const ReducedPart& p : reduced_parts(b)) optimizer_.step(steps_, p.element, p.at, p.count);
  }
}

void DataParallel::step(bool overlap, Seconds timeout, BucketObserver* observer) {
  DenseMath& math = model_.math();
  begin();
  start_step(observer);
  StepMarks marks;
  marks.forward_end = run_forward(timeout);
  marks.backward_end = run_backward(overlap);
  reduce_buckets(overlap, timeout);
  marks.waited = math.mark();
  update();
  marks.updated = math.mark();
  if (stage_ == 1 || stage_ == 2) {  // every rank's updated blocks to every rank
    for (std::size_t b = 0; b < buckets_.size(); ++b) start_gather(b, gather_[b]);
    for (Flight& f : gather_) wait(f, timeout);
  }
  marks.gathered = math.mark();
  math.synchronize();
  times_.total = since_began();
  record_times(marks);
}

void DataParallel::start_step(BucketObserver* observer) {
  observer_ = observer;
  reduce_comm_ = observer != nullptr ? &observer->reductions(comm_) : &comm_;
  const std::size_t nb = buckets_.size();
  reduce_ = std::vector<Flight>(nb);
  gather_ = std::vector<Flight>(nb);
  pre_gather_ = std::vector<Flight>(nb);
  pending_.clear();
  for (const Bucket& b : buckets_) pending_.push_back(b.tensors.size());
  const std::size_t layers = model_.shape().layers;
  forward_marks_.assign(layers, 0);
  backward_marks_.assign(layers, 0);
  ready_marks_.assign(nb, 0);
}

std::size_t DataParallel::run_forward(Seconds timeout) {
  DenseMath& math = model_.math();
  const std::size_t nb = buckets_.size();
  if (stage_ == 3) {  // every bucket's parameters, first layers first; a layer waits for its own buckets
    for (std::size_t b = nb; b-- > 0;) start_gather(b, pre_gather_[b]);
  }
  model_.forward([&](std::size_t l) {
    if (stage_ == 3) {
      wait(pre_gather_[bucket_of_[2 * l]], timeout);
      wait(pre_gather_[bucket_of_[2 * l + 1]], timeout);
    }
    forward_marks_[l] = math.mark();
  });
  const std::size_t forward_end = math.mark();
  if (stage_ == 3) {  // gathered again for the backward (ZeRO-3 freed them after the forward)
    for (std::size_t b = nb; b-- > 0;) start_gather(b, gather_[b]);
    for (Flight& f : gather_) wait(f, timeout);
  }
  return forward_end;
}

std::size_t DataParallel::run_backward(bool overlap) {
  DenseMath& math = model_.math();
  const float share = static_cast<float>(model_.batch()) / static_cast<float>(global_batch_);
  model_.backward(
      share,
      [&](std::size_t k) {
        if (k % 2 == 0) backward_marks_[k / 2] = math.mark();  // a layer's weight gradient is its last
        progress();                                            // between layers: the collectives in flight move on
        const std::size_t b = bucket_of_[k];
        if (--pending_[b] == 0) {
          ready_marks_[b] = math.mark();
          if (overlap) start_reduce(b);  // on a GPU the backend orders it after the gradients queued so far
        }
      },
      [&] { progress(); });
  return math.mark();
}

void DataParallel::reduce_buckets(bool overlap, Seconds timeout) {
  const std::size_t nb = buckets_.size();
  if (!overlap) {
    for (std::size_t b = 0; b < nb; ++b) start_reduce(b);
  }
  for (std::size_t b = 0; b < nb; ++b) {
    wait(reduce_[b], timeout);
    finish_reduce(b);
  }
  observer_ = nullptr;
  reduce_comm_ = &comm_;
}

void DataParallel::record_times(const StepMarks& marks) {
  const std::vector<double> at = model_.math().mark_seconds();
  times_.forward = at[marks.forward_end];
  times_.backward = at[marks.backward_end] - at[marks.forward_end];
  times_.wait = at[marks.waited] - at[marks.backward_end];
  times_.update = at[marks.updated] - at[marks.waited];
  times_.gather = at[marks.gathered] - at[marks.updated];
  forward_at_.clear();
  backward_at_.clear();
  for (std::size_t l = 0; l < forward_marks_.size(); ++l) {
    forward_at_.push_back(at[forward_marks_[l]]);
    backward_at_.push_back(at[backward_marks_[l]]);
  }
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    reduce_[b].start = std::max(reduce_[b].start, at[ready_marks_[b]]);  // a GPU's host starts it before it can run
    reduce_[b].end = std::max(reduce_[b].end, reduce_[b].start);
  }
}

std::vector<TimelineSpan> DataParallel::last_timeline() const {
  std::vector<TimelineSpan> out;
  const std::size_t layers = forward_at_.size();
  for (std::size_t l = 0; l < layers; ++l) {
    out.push_back(
        {fmt::format("fc{} forward", l), 0, forward_at_[l], l + 1 < layers ? forward_at_[l + 1] : times_.forward});
  }
  for (std::size_t l = layers; l-- > 0;) {
    const double from = l + 1 < layers ? backward_at_[l + 1] : times_.forward;
    out.push_back({fmt::format("fc{} backward", l), 0, from, backward_at_[l]});
  }
  const char* reduction = stage_ >= 2 ? "reduce-scatter" : "allreduce";
  for (std::size_t b = 0; b < reduce_.size(); ++b) {
    out.push_back({fmt::format("bucket {} {} ({} tensors, {} elements)", b, reduction, buckets_[b].tensors.size(),
                               buckets_[b].elements),
                   1, reduce_[b].start, reduce_[b].end});
  }
  for (const auto* flights : {&pre_gather_, &gather_}) {
    for (std::size_t b = 0; b < flights->size(); ++b) {
      const Flight& f = (*flights)[b];
      if (f.work.empty()) continue;
      out.push_back({fmt::format("bucket {} allgather of parameters", b), 1, f.start, f.end});
    }
  }
  const double update_from = times_.forward + times_.backward + times_.wait;
  out.push_back({"update", 0, update_from, update_from + times_.update});
  return out;
}

void DataParallel::gather_parameters(Seconds timeout) {
  if (stage_ != 3) return;
  model_.math().synchronize();
  gather_ = std::vector<Flight>(buckets_.size());
  for (std::size_t b = 0; b < buckets_.size(); ++b) start_gather(b, gather_[b]);
  for (Flight& f : gather_) wait(f, timeout);
}

double DataParallel::communicate_only(Seconds timeout) {
  begin();
  const std::size_t nb = buckets_.size();
  reduce_ = std::vector<Flight>(nb);
  gather_ = std::vector<Flight>(nb);
  pre_gather_ = std::vector<Flight>(nb);
  if (stage_ == 3) {  // before the forward, and again before the backward
    for (std::size_t b = 0; b < nb; ++b) start_gather(b, pre_gather_[b]);
    for (Flight& f : pre_gather_) wait(f, timeout);
    for (std::size_t b = 0; b < nb; ++b) start_gather(b, gather_[b]);
    for (Flight& f : gather_) wait(f, timeout);
  }
  for (std::size_t b = 0; b < nb; ++b) start_reduce(b);
  for (std::size_t b = 0; b < nb; ++b) {
    wait(reduce_[b], timeout);
    finish_reduce(b);
  }
  if (stage_ == 1 || stage_ == 2) {
    for (std::size_t b = 0; b < nb; ++b) start_gather(b, gather_[b]);
    for (Flight& f : gather_) wait(f, timeout);
  }
  return since_began();
}

void DataParallel::compute_only() {
  DenseMath& math = model_.math();
  begin();
  model_.forward();
  const std::size_t forward_end = math.mark();
  model_.backward(static_cast<float>(model_.batch()) / static_cast<float>(global_batch_));
  const std::size_t backward_end = math.mark();
  math.synchronize();
  times_ = {};
  times_.total = since_began();
  const std::vector<double> at = math.mark_seconds();
  times_.forward = at[forward_end];
  times_.backward = at[backward_end] - at[forward_end];
}

}  // namespace distbench::train
