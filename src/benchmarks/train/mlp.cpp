#include "benchmarks/train/mlp.hpp"

#include "core/error.hpp"

#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace distbench::train {
namespace {

// A uniform value in [-1, 1) from (seed, index): splitmix64, so that any rank makes any value alone.
float uniform(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ULL + index + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<float>(static_cast<double>(z >> 40) / static_cast<double>(1ULL << 23) - 1.0);
}

// Rows per block so that a block costs about kProgressFlops (`flops_per_row` each), at least 16 rows.
std::size_t blocks(std::size_t rows, double flops_per_row) {
  const auto per = static_cast<std::size_t>(Mlp::kProgressFlops / std::max(flops_per_row, 1.0));
  return std::min(rows, std::max<std::size_t>(per, 16));
}

std::size_t layer_in(const MlpShape& s, std::size_t l) { return l == 0 ? s.inputs : s.hidden; }
std::size_t layer_out(const MlpShape& s, std::size_t l) { return l + 1 == s.layers ? s.classes : s.hidden; }

}  // namespace

void set_blas_threads(int threads) { openblas_set_num_threads(std::max(1, threads)); }

Mlp::Mlp(const MlpShape& shape, std::uint64_t seed) : shape_(shape) {
  if (shape.layers == 0 || shape.inputs == 0 || shape.hidden == 0 || shape.classes == 0) {
    throw usage_error("an MLP needs at least one layer, and inputs, hidden width and classes above 0");
  }
  std::size_t total = 0;
  for (std::size_t l = 0; l < shape.layers; ++l) {
    const std::size_t in = layer_in(shape, l), out = layer_out(shape, l);
    tensors_.push_back({fmt::format("fc{}.weight", l), out * in});
    tensors_.push_back({fmt::format("fc{}.bias", l), out});
  }
  for (const TensorSpec& t : tensors_) {
    offsets_.push_back(total);
    total += t.elements;
  }
  params_.resize(total);
  grads_.assign(total, 0.0f);
  for (std::size_t l = 0; l < shape.layers; ++l) {
    // PyTorch's Linear: weights and biases uniform within 1/sqrt(fan-in).
    const float fan_in = static_cast<float>(layer_in(shape, l));
    const float bound = 1.0f / std::sqrt(fan_in);
    for (std::size_t k : {2 * l, 2 * l + 1}) {
      const float b = bound;
      for (std::size_t i = 0; i < tensors_[k].elements; ++i) {
        params_[offsets_[k] + i] = b * uniform(seed, offsets_[k] + i);
      }
    }
  }
}

float Mlp::forward(const float* x, const int* labels, std::size_t batch,
                   const std::function<void(std::size_t)>& on_layer) {
  const std::size_t layers = shape_.layers;
  batch_ = batch;
  labels_.assign(labels, labels + batch);
  acts_.resize(layers);
  acts_[0].assign(x, x + batch * shape_.inputs);
  std::vector<float> z;
  for (std::size_t l = 0; l < layers; ++l) {
    if (on_layer) on_layer(l);
    const std::size_t in = layer_in(shape_, l), out = layer_out(shape_, l);
    const float* w = params_.data() + offsets_[2 * l];
    const float* b = params_.data() + offsets_[2 * l + 1];
    z.resize(batch * out);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(batch), static_cast<int>(out),
                static_cast<int>(in), 1.0f, acts_[l].data(), static_cast<int>(in), w, static_cast<int>(in), 0.0f,
                z.data(), static_cast<int>(out));
    for (std::size_t r = 0; r < batch; ++r) {
      for (std::size_t c = 0; c < out; ++c) z[r * out + c] += b[c];
    }
    if (l + 1 < layers) {
      for (float& v : z) v = std::max(v, 0.0f);
      acts_[l + 1] = z;
    }
  }
  // Softmax cross-entropy of the logits in z, row by row.
  probs_.resize(batch * shape_.classes);
  double loss = 0;
  for (std::size_t r = 0; r < batch; ++r) {
    const float* logits = z.data() + r * shape_.classes;
    float* p = probs_.data() + r * shape_.classes;
    const float top = *std::max_element(logits, logits + shape_.classes);
    float sum = 0;
    for (std::size_t c = 0; c < shape_.classes; ++c) sum += p[c] = std::exp(logits[c] - top);
    for (std::size_t c = 0; c < shape_.classes; ++c) p[c] /= sum;
    loss -= std::log(std::max(p[static_cast<std::size_t>(labels_[r])], 1e-30f));
  }
  return static_cast<float>(loss / static_cast<double>(batch));
}

void Mlp::backward(float scale, const std::function<void(std::size_t)>& on_gradient,
                   const std::function<void()>& on_progress) {
  const std::size_t layers = shape_.layers, batch = batch_;
  // d loss / d logits = (p - onehot) / batch, times the caller's scale.
  std::vector<float> dz(probs_);
  const float k = scale / static_cast<float>(batch);
  for (std::size_t r = 0; r < batch; ++r) {
    dz[r * shape_.classes + static_cast<std::size_t>(labels_[r])] -= 1.0f;
  }
  for (float& v : dz) v *= k;
  std::vector<float> da;
  for (std::size_t l = layers; l-- > 0;) {
    const std::size_t in = layer_in(shape_, l), out = layer_out(shape_, l);
    float* gw = grads_.data() + offsets_[2 * l];
    float* gb = grads_.data() + offsets_[2 * l + 1];
    std::fill(gb, gb + out, 0.0f);
    for (std::size_t r = 0; r < batch; ++r) {
      for (std::size_t c = 0; c < out; ++c) gb[c] += dz[r * out + c];
    }
    if (on_gradient) on_gradient(2 * l + 1);
    // dW = dZ^T A, a block of output rows at a time.
    const std::size_t rows = blocks(out, 2.0 * static_cast<double>(in * batch));
    for (std::size_t r0 = 0; r0 < out; r0 += rows) {
      const std::size_t n = std::min(rows, out - r0);
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<int>(n), static_cast<int>(in),
                  static_cast<int>(batch), 1.0f, dz.data() + r0, static_cast<int>(out), acts_[l].data(),
                  static_cast<int>(in), 0.0f, gw + r0 * in, static_cast<int>(in));
      if (on_progress) on_progress();
    }
    if (on_gradient) on_gradient(2 * l);
    if (l == 0) break;
    // d loss / d input of layer l, through the ReLU that made it.
    da.resize(batch * in);
    // dA = dZ W, a block of samples at a time.
    const std::size_t samples = blocks(batch, 2.0 * static_cast<double>(in * out));
    for (std::size_t r0 = 0; r0 < batch; r0 += samples) {
      const std::size_t n = std::min(samples, batch - r0);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(n), static_cast<int>(in),
                  static_cast<int>(out), 1.0f, dz.data() + r0 * out, static_cast<int>(out),
                  params_.data() + offsets_[2 * l], static_cast<int>(in), 0.0f, da.data() + r0 * in,
                  static_cast<int>(in));
      if (on_progress) on_progress();
    }
    const std::vector<float>& a = acts_[l];
    for (std::size_t i = 0; i < da.size(); ++i) {
      if (a[i] <= 0.0f) da[i] = 0.0f;
    }
    dz.swap(da);
  }
}

TeacherData::TeacherData(const MlpShape& s, std::uint64_t seed_) : shape(s), seed(seed_) {
  teacher.resize(shape.classes * shape.inputs);
  for (std::size_t i = 0; i < teacher.size(); ++i) teacher[i] = uniform(seed + 1, i);
}

void TeacherData::batch(std::uint64_t first_sample, std::size_t count, float* x, int* labels) const {
  for (std::size_t r = 0; r < count; ++r) {
    float* row = x + r * shape.inputs;
    const std::uint64_t sample = first_sample + r;
    for (std::size_t j = 0; j < shape.inputs; ++j) row[j] = uniform(seed, sample * shape.inputs + j);
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
