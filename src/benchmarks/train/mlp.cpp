#include "benchmarks/train/mlp.hpp"

#include "core/error.hpp"
#include "numerics/uniform.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace distbench::train {
namespace {

// Rows per block so that a block costs about kProgressFlops (`flops_per_row` each), at least 16 rows.
std::size_t blocks(std::size_t rows, double flops_per_row) {
  const auto per = static_cast<std::size_t>(Mlp::kProgressFlops / std::max(flops_per_row, 1.0));
  return std::min(rows, std::max<std::size_t>(per, 16));
}

std::size_t layer_in(const MlpShape& s, std::size_t l) { return l == 0 ? s.inputs : s.hidden; }
std::size_t layer_out(const MlpShape& s, std::size_t l) { return l + 1 == s.layers ? s.classes : s.hidden; }

}  // namespace

std::size_t parameter_count(const MlpShape& s) {
  if (s.layers == 0) return 0;
  // The first layer, the hidden-to-hidden ones between (all alike: counted at once, not layer by layer), the last.
  const std::size_t first = layer_in(s, 0) * layer_out(s, 0) + layer_out(s, 0);
  if (s.layers == 1) return first;
  const std::size_t middle = (s.layers - 2) * (s.hidden * s.hidden + s.hidden);
  return first + middle + s.hidden * s.classes + s.classes;
}

Mlp::Mlp(const MlpShape& shape, std::uint64_t seed, Device& device, DenseMath& math, const TensorParallel& tp)
    : shape_(shape), device_(device), math_(math), tp_(tp) {
  if (shape.layers == 0 || shape.inputs == 0 || shape.hidden == 0 || shape.classes == 0) {
    throw usage_error("an MLP needs at least one layer, and inputs, hidden width and classes above 0");
  }
  const std::size_t g = tp_size();
  if (g > 1 && shape.hidden % g != 0) {
    throw usage_error(fmt::format("--hidden {} does not split over a tensor-parallel group of {}: use a multiple of {}",
                                  shape.hidden, g, g));
  }
  // Hidden layers in pairs: column (output features split), then row (input features split); the rest replicated.
  for (std::size_t l = 0; l < shape.layers; ++l) {
    const bool hidden_pair = g > 1 && l % 2 == 0 && l + 2 < shape.layers;
    split_.push_back(hidden_pair ? Split::column
                                 : (l > 0 && split_[l - 1] == Split::column ? Split::row : Split::replicated));
  }
  std::size_t full_total = 0;
  std::vector<std::size_t> full_offsets;
  for (std::size_t l = 0; l < shape.layers; ++l) {
    tensors_.push_back({fmt::format("fc{}.weight", l), local_out(l) * local_in(l)});
    tensors_.push_back({fmt::format("fc{}.bias", l), local_out(l)});
    for (std::size_t n : {layer_out(shape, l) * layer_in(shape, l), layer_out(shape, l)}) {
      full_offsets.push_back(full_total);
      full_total += n;
    }
  }
  for (const TensorSpec& t : tensors_) {
    offsets_.push_back(parameters_);
    parameters_ += t.elements;
  }
  // The whole model's initial values (PyTorch's Linear: uniform within 1/sqrt(fan-in)), then this rank's part.
  std::vector<float> full(full_total);
  for (std::size_t l = 0; l < shape.layers; ++l) {
    const float bound = 1.0f / std::sqrt(static_cast<float>(layer_in(shape, l)));
    for (std::size_t k : {2 * l, 2 * l + 1}) {
      const std::size_t n = k % 2 == 0 ? layer_out(shape, l) * layer_in(shape, l) : layer_out(shape, l);
      for (std::size_t i = 0; i < n; ++i) {
        full[full_offsets[k] + i] = bound * numerics::uniform_value(seed, full_offsets[k] + i);
      }
    }
  }
  const std::vector<float> init = shard_of(full);
  params_ = device_.allocate(parameters_ * sizeof(float));
  grads_ = device_.allocate(parameters_ * sizeof(float));
  math_.upload(params(), init.data(), parameters_ * sizeof(float));
  const std::vector<float> zeros(parameters_, 0.0f);
  math_.upload(grads(), zeros.data(), parameters_ * sizeof(float));
}

std::size_t Mlp::tp_size() const { return tp_.group == nullptr ? 1 : static_cast<std::size_t>(tp_.group->size()); }
std::size_t Mlp::tp_rank() const { return tp_.group == nullptr ? 0 : static_cast<std::size_t>(tp_.group->rank()); }
std::size_t Mlp::local_in(std::size_t l) const {
  return split_[l] == Split::row ? layer_in(shape_, l) / tp_size() : layer_in(shape_, l);
}
std::size_t Mlp::local_out(std::size_t l) const {
  return split_[l] == Split::column ? layer_out(shape_, l) / tp_size() : layer_out(shape_, l);
}

std::vector<float> Mlp::shard_of(const std::vector<float>& full) const {
  std::vector<float> out;
  out.reserve(parameters_);
  const std::size_t r = tp_rank();
  std::size_t at = 0;  // the layer's first element in the whole model
  for (std::size_t l = 0; l < shape_.layers; ++l) {
    const std::size_t in = layer_in(shape_, l), o = layer_out(shape_, l), li = local_in(l), lo = local_out(l);
    const auto w = full.begin() + static_cast<std::ptrdiff_t>(at), b = w + static_cast<std::ptrdiff_t>(o * in);
    switch (split_[l]) {
      case Split::column:  // rows r*lo .. of the weight and of the bias
        out.insert(out.end(), w + static_cast<std::ptrdiff_t>(r * lo * in),
                   w + static_cast<std::ptrdiff_t>((r + 1) * lo * in));
        out.insert(out.end(), b + static_cast<std::ptrdiff_t>(r * lo), b + static_cast<std::ptrdiff_t>((r + 1) * lo));
        break;
      case Split::row:  // columns r*li .. of every row of the weight; the whole bias
        for (std::size_t row = 0; row < o; ++row) {
          const auto from = w + static_cast<std::ptrdiff_t>(row * in + r * li);
          out.insert(out.end(), from, from + static_cast<std::ptrdiff_t>(li));
        }
        out.insert(out.end(), b, b + static_cast<std::ptrdiff_t>(o));
        break;
      case Split::replicated: out.insert(out.end(), w, b + static_cast<std::ptrdiff_t>(o)); break;
    }
    at += o * in + o;
  }
  return out;
}

std::vector<float> Mlp::download_params() {
  std::vector<float> out(parameters_);
  math_.download(out.data(), params(), parameters_ * sizeof(float));
  return out;
}

void Mlp::load_batch(const float* x, const int* labels, std::size_t batch) {
  if (batch == 0) throw usage_error("a batch needs at least one sample");
  if (batch > capacity_) {
    act_offsets_.clear();
    std::size_t total = 0, widest = shape_.classes;
    for (std::size_t l = 0; l < shape_.layers; ++l) {
      act_offsets_.push_back(total);
      total += batch * local_in(l);
      widest = std::max({widest, local_in(l), local_out(l)});
    }
    acts_ = device_.allocate(total * sizeof(float));
    logits_ = device_.allocate(batch * shape_.classes * sizeof(float));
    dz_ = device_.allocate(batch * widest * sizeof(float));
    da_ = device_.allocate(batch * widest * sizeof(float));
    row_loss_ = device_.allocate(batch * sizeof(float));
    labels_ = device_.allocate(batch * sizeof(int));
    capacity_ = batch;
  }
  batch_ = batch;
  math_.upload(act(0), x, batch * shape_.inputs * sizeof(float));
  math_.upload(labels_->data(), labels, batch * sizeof(int));
}

void Mlp::tp_allreduce(BufferRef at, std::size_t count) {
  tp_.group->start({Collective::allreduce, at, at, count, DType::float32, ReduceOp::sum, 0})->wait(tp_.timeout);
}

void Mlp::forward(const std::function<void(std::size_t)>& on_layer) {
  if (batch_ == 0) throw usage_error("Mlp::forward before load_batch");
  const std::size_t layers = shape_.layers, batch = batch_;
  auto* logits = static_cast<float*>(logits_->data());
  for (std::size_t l = 0; l < layers; ++l) {
    if (on_layer) on_layer(l);
    const std::size_t in = local_in(l), out = local_out(l);
    const bool last = l + 1 == layers;
    float* z = last ? logits : act(l + 1);
    math_.gemm(false, true, batch, out, in, 1.0f, act(l), in, params() + offsets_[2 * l], in, 0.0f, z, out);
    // A row-parallel layer's products are partial sums over its input shard: summed over the group (`reduce`).
    if (split_[l] == Split::row) tp_allreduce({acts_.get(), act_offsets_[l + 1] * sizeof(float)}, batch * out);
    math_.add_bias(z, params() + offsets_[2 * l + 1], batch, out, !last);
  }
  math_.softmax_cross_entropy(logits, static_cast<const int*>(labels_->data()), batch, shape_.classes,
                              static_cast<float*>(row_loss_->data()));
}

float Mlp::loss() {
  std::vector<float> rows(batch_);
  math_.download(rows.data(), row_loss_->data(), batch_ * sizeof(float));
  double sum = 0;
  for (float r : rows) sum += r;
  return static_cast<float>(sum / static_cast<double>(batch_));
}

void Mlp::backward(float scale, const std::function<void(std::size_t)>& on_gradient,
                   const std::function<void()>& on_progress) {
  const std::size_t layers = shape_.layers, batch = batch_;
  const bool cut = !math_.asynchronous();  // a GPU needs no progress between blocks
  const auto* labels = static_cast<const int*>(labels_->data());
  // d loss / d logits = (p - onehot) / batch, times the caller's scale, where the probabilities are.
  float* dz = static_cast<float*>(logits_->data());
  math_.cross_entropy_backward(dz, labels, batch, shape_.classes, scale / static_cast<float>(batch));
  Buffer* scratch[2] = {dz_.get(), da_.get()};
  int next = 0;  // the scratch buffer the next input gradient goes to
  for (std::size_t l = layers; l-- > 0;) {
    const std::size_t in = local_in(l), out = local_out(l);
    float* gw = grads() + offsets_[2 * l];
    math_.column_sums(dz, batch, out, grads() + offsets_[2 * l + 1]);
    if (on_gradient) on_gradient(2 * l + 1);
    // dW = dZ^T A, a block of output rows at a time.
    const std::size_t rows = cut ? blocks(out, 2.0 * static_cast<double>(in * batch)) : out;
    for (std::size_t r0 = 0; r0 < out; r0 += rows) {
      const std::size_t n = std::min(rows, out - r0);
      math_.gemm(true, false, n, in, batch, 1.0f, dz + r0, out, act(l), in, 0.0f, gw + r0 * in, in);
      if (on_progress) on_progress();
    }
    if (on_gradient) on_gradient(2 * l);
    if (l == 0) break;
    // d loss / d input of layer l (dA = dZ W, a block of samples at a time), through the ReLU that made it.
    Buffer* da_buffer = scratch[next];
    next = 1 - next;
    auto* da = static_cast<float*>(da_buffer->data());
    const std::size_t samples = cut ? blocks(batch, 2.0 * static_cast<double>(in * out)) : batch;
    for (std::size_t r0 = 0; r0 < batch; r0 += samples) {
      const std::size_t n = std::min(samples, batch - r0);
      math_.gemm(false, false, n, in, out, 1.0f, dz + r0 * out, out, params() + offsets_[2 * l], in, 0.0f, da + r0 * in,
                 in);
      if (on_progress) on_progress();
    }
    // A column-parallel layer's input gradient is a partial sum over its output shard (`copy`'s backward).
    if (split_[l] == Split::column) tp_allreduce({da_buffer, 0}, batch * in);
    math_.relu_backward(da, act(l), batch * in);
    dz = da;
  }
}

TeacherData::TeacherData(const MlpShape& s, std::uint64_t seed_) : shape(s), seed(seed_) {
  teacher.resize(shape.classes * shape.inputs);
  for (std::size_t i = 0; i < teacher.size(); ++i) teacher[i] = numerics::uniform_value(seed + 1, i);
}

void TeacherData::batch(std::uint64_t first_sample, std::size_t count, float* x, int* labels) const {
  for (std::size_t r = 0; r < count; ++r) {
    float* row = x + r * shape.inputs;
    const std::uint64_t sample = first_sample + r;
    for (std::size_t j = 0; j < shape.inputs; ++j) row[j] = numerics::uniform_value(seed, sample * shape.inputs + j);
    std::size_t best = 0;
    float best_score = -1e30f;
    for (std::size_t c = 0; c < shape.classes; ++c) {
      float score = 0;
      for (std::size_t j = 0; j < shape.inputs; ++j) score += teacher[c * shape.inputs + j] * row[j];
      if (score > best_score) {
        best_score = score;
        best = c;
      }
    }
    labels[r] = static_cast<int>(best);
  }
}

}  // namespace distbench::train
