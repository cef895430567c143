#include "benchmarks/train/data_parallel.hpp"

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

void OptimizerState::step(int step) {
  DenseMath& math = model_.math();
  auto* a = static_cast<float*>(a_->data());
  if (optimizer_.kind == Optimizer::Kind::sgd) {
    math.sgd(model_.params(), model_.grads(), a, model_.parameters(), optimizer_.lr, optimizer_.momentum);
    return;
  }
  AdamStep adam;
  adam.lr = optimizer_.lr;
  adam.beta1 = optimizer_.adam.beta1;
  adam.beta2 = optimizer_.adam.beta2;
  adam.eps = optimizer_.adam.eps;
  adam.grad_scale = 1.0f;  // the backward scaled each rank's gradients by its share of the global batch
  adam.step = step;
  math.adam(adam, model_.grads(), model_.params(), a, static_cast<float*>(b_->data()), model_.parameters());
}

DataParallel::DataParallel(Communicator& comm, Mlp& model, std::size_t bucket_bytes, std::size_t global_batch,
                           Optimizer optimizer)
    : comm_(comm), model_(model), global_batch_(global_batch), optimizer_(optimizer, model) {
  buckets_ = assign_buckets(model.tensors(), sizeof(float), bucket_bytes);
  bucket_of_.resize(model.tensors().size());
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    std::size_t first = model.parameters();
    for (std::size_t k : buckets_[b].tensors) {
      bucket_of_[k] = b;
      first = std::min(first, model.tensor_offset(k));
    }
    first_of_.push_back(first);
  }
}

void DataParallel::begin() {
  model_.math().synchronize();
  model_.math().reset_marks();
  began_ = std::chrono::steady_clock::now();
}

double DataParallel::since_began() const { return since(began_); }

void DataParallel::start_bucket(std::size_t b) {
  const BufferRef at{&model_.grad_buffer(), first_of_[b] * sizeof(float)};
  const CollectiveCall call{Collective::allreduce, at, at, buckets_[b].elements, DType::float32, ReduceOp::sum, 0};
  spans_[b].start = since_began();
  work_[b] = comm_.start(call);
}

void DataParallel::progress() {
  for (std::size_t b = 0; b < work_.size(); ++b) {
    if (work_[b] && spans_[b].end == 0 && work_[b]->done()) spans_[b].end = since_began();
  }
}

void DataParallel::step(bool overlap, Seconds timeout) {
  DenseMath& math = model_.math();
  begin();
  work_.clear();
  work_.resize(buckets_.size());
  spans_.assign(buckets_.size(), {});
  pending_.clear();
  for (const Bucket& b : buckets_) pending_.push_back(b.tensors.size());
  const std::size_t layers = model_.shape().layers;
  forward_marks_.assign(layers, 0);
  backward_marks_.assign(layers, 0);
  ready_marks_.assign(buckets_.size(), 0);

  model_.forward([&](std::size_t l) { forward_marks_[l] = math.mark(); });
  const std::size_t forward_end = math.mark();
  const float share = static_cast<float>(model_.batch()) / static_cast<float>(global_batch_);
  model_.backward(
      share,
      [&](std::size_t k) {
        if (k % 2 == 0) backward_marks_[k / 2] = math.mark();  // a layer's weight gradient is its last
        progress();                                            // between layers: the collectives in flight move on
        const std::size_t b = bucket_of_[k];
        if (--pending_[b] == 0) {
          ready_marks_[b] = math.mark();
          if (overlap) start_bucket(b);  // on a GPU the backend orders it after the gradients queued so far
        }
      },
      [&] { progress(); });
  const std::size_t backward_end = math.mark();
  if (!overlap) {
    for (std::size_t b = 0; b < buckets_.size(); ++b) start_bucket(b);
  }
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    work_[b]->wait(timeout);
    if (spans_[b].end == 0) spans_[b].end = since_began();
  }
  const std::size_t waited = math.mark();
  optimizer_.step(++steps_);
  const std::size_t updated = math.mark();
  math.synchronize();
  times_.total = since_began();

  const std::vector<double> at = math.mark_seconds();
  times_.forward = at[forward_end];
  times_.backward = at[backward_end] - at[forward_end];
  times_.wait = at[waited] - at[backward_end];
  times_.update = at[updated] - at[waited];
  forward_at_.clear();
  backward_at_.clear();
  for (std::size_t l = 0; l < layers; ++l) {
    forward_at_.push_back(at[forward_marks_[l]]);
    backward_at_.push_back(at[backward_marks_[l]]);
  }
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    spans_[b].start = std::max(spans_[b].start, at[ready_marks_[b]]);  // a GPU's host starts it before it can run
    spans_[b].end = std::max(spans_[b].end, spans_[b].start);
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
  for (std::size_t b = 0; b < spans_.size(); ++b) {
    out.push_back({fmt::format("bucket {} allreduce ({} tensors, {} elements)", b, buckets_[b].tensors.size(),
                               buckets_[b].elements),
                   1, spans_[b].start, spans_[b].end});
  }
  const double update_from = times_.forward + times_.backward + times_.wait;
  out.push_back({"update", 0, update_from, update_from + times_.update});
  return out;
}

double DataParallel::communicate_only(Seconds timeout) {
  begin();
  work_.clear();
  work_.resize(buckets_.size());
  spans_.assign(buckets_.size(), {});
  for (std::size_t b = 0; b < buckets_.size(); ++b) start_bucket(b);
  for (auto& w : work_) w->wait(timeout);
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
