#include "benchmarks/train/data_parallel.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace distbench::train {
namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

void optimizer_step(const Optimizer& o, int step, float* params, const float* grads, std::vector<float>& state_a,
                    std::vector<float>& state_b) {
  const std::size_t n = state_a.size();
  if (o.kind == Optimizer::Kind::adam) {
    zero::AdamConfig adam = o.adam;
    adam.lr = o.lr;
    adam.grad_scale = 1.0f;  // the backward scaled each rank's gradients by its share of the global batch
    zero::adam_update(adam, step, DType::float32, grads, params, state_a.data(), state_b.data(), nullptr, n);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    state_a[i] = o.momentum * state_a[i] + grads[i];
    params[i] -= o.lr * state_a[i];
  }
}

DataParallel::DataParallel(Communicator& comm, Mlp& model, std::size_t bucket_bytes, std::size_t global_batch,
                           Optimizer optimizer)
    : comm_(comm), model_(model), global_batch_(global_batch), optimizer_(optimizer) {
  buckets_ = assign_buckets(model.tensors(), sizeof(float), bucket_bytes);
  bucket_of_.resize(model.tensors().size());
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    std::size_t first = model.params().size();
    for (std::size_t k : buckets_[b].tensors) {
      bucket_of_[k] = b;
      first = std::min(first, model.tensor_offset(k));
    }
    first_of_.push_back(first);
  }
  m_.assign(model.params().size(), 0.0f);
  v_.assign(model.params().size(), 0.0f);
  grads_view_ = ExternalBuffer(model.grads().data(), model.grads().size() * sizeof(float));
}

void DataParallel::start_bucket(std::size_t b) {
  const BufferRef at{&grads_view_, first_of_[b] * sizeof(float)};
  const CollectiveCall call{Collective::allreduce, at, at, buckets_[b].elements, DType::float32, ReduceOp::sum, 0};
  spans_[b].start = since(began_);
  work_[b] = comm_.start(call);
}

void DataParallel::progress() {
  for (std::size_t b = 0; b < work_.size(); ++b) {
    if (work_[b] && spans_[b].end == 0 && work_[b]->done()) spans_[b].end = since(began_);
  }
}

void DataParallel::update() {
  ++steps_;
  optimizer_step(optimizer_, steps_, model_.params().data(), model_.grads().data(), m_, v_);
}

float DataParallel::step(const float* x, const int* labels, std::size_t local_batch, bool overlap, Seconds timeout) {
  began_ = std::chrono::steady_clock::now();
  work_.clear();
  work_.resize(buckets_.size());
  spans_.assign(buckets_.size(), {});
  pending_.clear();
  for (const Bucket& b : buckets_) pending_.push_back(b.tensors.size());

  const std::size_t layers = model_.shape().layers;
  forward_marks_.assign(layers, 0.0);
  backward_marks_.assign(layers, 0.0);
  const float loss = model_.forward(x, labels, local_batch, [&](std::size_t l) { forward_marks_[l] = since(began_); });
  times_.forward = since(began_);
  const float share = static_cast<float>(local_batch) / static_cast<float>(global_batch_);
  model_.backward(
      share,
      [&](std::size_t k) {
        if (k % 2 == 0) backward_marks_[k / 2] = since(began_);  // a layer's weight gradient is its last
        progress();                                              // between layers: the collectives in flight move on
        const std::size_t b = bucket_of_[k];
        if (--pending_[b] == 0 && overlap) start_bucket(b);
      },
      [&] { progress(); });
  times_.backward = since(began_) - times_.forward;
  const double waited_from = since(began_);
  if (!overlap) {
    for (std::size_t b = 0; b < buckets_.size(); ++b) start_bucket(b);
  }
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    work_[b]->wait(timeout);
    if (spans_[b].end == 0) spans_[b].end = since(began_);
  }
  times_.wait = since(began_) - waited_from;
  const double updated_from = since(began_);
  update();
  times_.update = since(began_) - updated_from;
  times_.total = since(began_);
  return loss;
}

std::vector<TimelineSpan> DataParallel::last_timeline() const {
  std::vector<TimelineSpan> out;
  const std::size_t layers = forward_marks_.size();
  for (std::size_t l = 0; l < layers; ++l) {
    out.push_back({fmt::format("fc{} forward", l), 0, forward_marks_[l],
                   l + 1 < layers ? forward_marks_[l + 1] : times_.forward});
  }
  for (std::size_t l = layers; l-- > 0;) {
    const double from = l + 1 < layers ? backward_marks_[l + 1] : times_.forward;
    out.push_back({fmt::format("fc{} backward", l), 0, from, backward_marks_[l]});
  }
  for (std::size_t b = 0; b < spans_.size(); ++b) {
    out.push_back({fmt::format("bucket {} allreduce ({} tensors, {} elements)", b, buckets_[b].tensors.size(),
                               buckets_[b].elements),
                   1, spans_[b].start, spans_[b].end});
  }
  const double update_from = times_.total - times_.update;
  out.push_back({"update", 0, update_from, times_.total});
  return out;
}

double DataParallel::communicate_only(Seconds timeout) {
  began_ = std::chrono::steady_clock::now();
  work_.clear();
  work_.resize(buckets_.size());
  spans_.assign(buckets_.size(), {});
  for (std::size_t b = 0; b < buckets_.size(); ++b) start_bucket(b);
  for (auto& w : work_) w->wait(timeout);
  return since(began_);
}

float DataParallel::compute_only(const float* x, const int* labels, std::size_t local_batch) {
  const auto began = std::chrono::steady_clock::now();
  const float loss = model_.forward(x, labels, local_batch);
  times_ = {};
  times_.forward = since(began);
  model_.backward(static_cast<float>(local_batch) / static_cast<float>(global_batch_));
  times_.total = since(began);
  times_.backward = times_.total - times_.forward;
  return loss;
}

}  // namespace distbench::train
