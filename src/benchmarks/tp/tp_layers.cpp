#include "benchmarks/tp/tp_layers.hpp"

#include "core/error.hpp"
#include "numerics/host_math.hpp"
#include "numerics/uniform.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

namespace distbench::tp {
namespace {

std::vector<float> tensor(std::uint64_t seed, std::uint64_t id, std::size_t n, float scale) {
  std::vector<float> v(n);
  // a stream per tensor
  for (std::size_t i = 0; i < n; ++i) v[i] = scale * numerics::uniform_value(seed ^ (id << 56), i);
  return v;
}

// Rows [r0, r0 + n) and columns [c0, c0 + n) of a row-major matrix with `cols` columns.
std::vector<float> rows_of(const std::vector<float>& m, std::size_t cols, std::size_t r0, std::size_t n) {
  return {m.begin() + static_cast<std::ptrdiff_t>(r0 * cols), m.begin() + static_cast<std::ptrdiff_t>((r0 + n) * cols)};
}
std::vector<float> cols_of(const std::vector<float>& m, std::size_t cols, std::size_t c0, std::size_t n) {
  const std::size_t rows = m.size() / cols;
  std::vector<float> out;
  out.reserve(rows * n);
  for (std::size_t r = 0; r < rows; ++r) {
    out.insert(out.end(), m.begin() + static_cast<std::ptrdiff_t>(r * cols + c0),
               m.begin() + static_cast<std::ptrdiff_t>(r * cols + c0 + n));
  }
  return out;
}

std::vector<float> abs_of(const std::vector<float>& v) {
  std::vector<float> out(v.size());
  std::transform(v.begin(), v.end(), out.begin(), [](float x) { return std::abs(x); });
  return out;
}

// Each element against its bound: two float32 evaluations of the same sums (the ranks', in any order and split, and
// the reference's) each lie within gamma_L * M of the exact value, M being the computation on the inputs' absolute
// values and L the longest chain of rounded operations to the element (Higham, Accuracy and Stability of Numerical
// Algorithms, 2nd ed., sections 3.1 and 3.5: gamma_L = L u / (1 - L u), u = 2^-24); so they differ by at most
// 2 gamma_L M. A wrong shard, a missing or doubled reduction, a wrong peer are off by about M itself.
void compare(const std::vector<float>& got, const std::vector<float>& ref, const std::vector<float>& magnitude,
             double chain, LayerCheck& c) {
  constexpr double u = 0x1p-24;
  const double gamma = chain * u / (1 - chain * u);
  double largest = 0;
  for (float r : ref) largest = std::max(largest, std::abs(static_cast<double>(r)));
  const double floor = 1e-2 * largest + 1e-30;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double a = got[i], b = ref[i];
    const double d = std::abs(a - b);
    const double bound = 2 * gamma * magnitude[i] + std::numeric_limits<float>::denorm_min();
    c.max_rel_diff = std::max(c.max_rel_diff, d / std::max({std::abs(a), std::abs(b), floor}));
    c.max_over_bound = std::max(c.max_over_bound, d / bound);
    if (!(d <= bound)) ++c.wrong;
  }
}

// Tensor ids of the deterministic values.
enum : std::uint64_t { kW = 1, kB, kX, kDy, kW2, kB2 };

// The whole layer's tensors (tp_layers.hpp declares them), as one rank alone would hold them: weight (out x in) and
// bias, input (batch x in) and the upstream gradient (batch x out; the MLP's: batch x in), and the MLP's second weight
// (in x out) and bias. The MLP's first bias is kept away from zero (|b1| >= 0.5) and its first weight small (|x w1|
// about 0.03), so that no pre-activation sits at the ReLU's kink, where a rounding difference between two devices would
// flip the mask.
}  // namespace

struct FullTensors {
  std::vector<float> x, w, b, dy, w2, b2;
};

namespace {

FullTensors full_tensors(LayerKind kind, const LayerShape& s, std::uint64_t seed) {
  const std::size_t I = s.in, O = s.out, B = s.batch;
  FullTensors t;
  t.x = tensor(seed, kX, B * I, 1.0f);
  const float wscale = 1.0f / std::sqrt(static_cast<float>(I));
  if (kind != LayerKind::mlp) {
    t.w = tensor(seed, kW, O * I, wscale);
    t.b = tensor(seed, kB, O, wscale);
    t.dy = tensor(seed, kDy, B * O, 1.0f);
    return t;
  }
  t.w = tensor(seed, kW, O * I, 0.1f * wscale);
  t.b = tensor(seed, kB, O, 1.0f);
  for (float& v : t.b) v = std::copysign(0.5f + 0.5f * std::abs(v), v);
  t.w2 = tensor(seed, kW2, I * O, 1.0f / std::sqrt(static_cast<float>(O)));
  t.b2 = tensor(seed, kB2, I, wscale);
  t.dy = tensor(seed, kDy, B * I, 1.0f);
  return t;
}

// One linear layer's forward and backward on the CPU, whole (the single-rank reference, or its magnitudes).
struct LinearPass {
  std::vector<float> y, dw, db, dx;
};
LinearPass linear_on_cpu(DenseMath& cpu, const LayerShape& s, const std::vector<float>& x, const std::vector<float>& w,
                         const std::vector<float>& b, const std::vector<float>& dy) {
  const std::size_t I = s.in, O = s.out, B = s.batch;
  LinearPass p{std::vector<float>(B * O), std::vector<float>(O * I), std::vector<float>(O), std::vector<float>(B * I)};
  cpu.gemm(false, true, B, O, I, 1.0f, x.data(), I, w.data(), I, 0.0f, p.y.data(), O);
  cpu.add_bias(p.y.data(), b.data(), B, O, false);
  cpu.gemm(true, false, O, I, B, 1.0f, dy.data(), O, x.data(), I, 0.0f, p.dw.data(), I);
  cpu.column_sums(dy.data(), B, O, p.db.data());
  cpu.gemm(false, false, B, I, O, 1.0f, dy.data(), O, w.data(), I, 0.0f, p.dx.data(), I);
  return p;
}

// The MLP's inputs: x, its two layers' weights and biases, and the gradient of its output.
struct MlpInputs {
  std::vector<float> x, w1, b1, w2, b2, dz;
};
struct MlpPass {
  std::vector<float> h, z, dw2, db2, dh, dw1, db1, dx;
};
// The MLP's forward and backward on the CPU, whole. `mask` null: the ReLU of h its own; otherwise the zeros of
// `mask` (the reference's ReLU output) mask h and its gradient (the magnitudes' pass).
MlpPass mlp_on_cpu(DenseMath& cpu, const LayerShape& s, const MlpInputs& in, const std::vector<float>* mask) {
  const std::size_t I = s.in, O = s.out, B = s.batch;
  MlpPass p{std::vector<float>(B * O), std::vector<float>(B * I), std::vector<float>(I * O), std::vector<float>(I),
            std::vector<float>(B * O), std::vector<float>(O * I), std::vector<float>(O),     std::vector<float>(B * I)};
  cpu.gemm(false, true, B, O, I, 1.0f, in.x.data(), I, in.w1.data(), I, 0.0f, p.h.data(), O);
  cpu.add_bias(p.h.data(), in.b1.data(), B, O, mask == nullptr);
  if (mask != nullptr) cpu.relu_backward(p.h.data(), mask->data(), B * O);
  const float* relu = mask != nullptr ? mask->data() : p.h.data();
  cpu.gemm(false, true, B, I, O, 1.0f, p.h.data(), O, in.w2.data(), O, 0.0f, p.z.data(), I);
  cpu.add_bias(p.z.data(), in.b2.data(), B, I, false);
  cpu.gemm(true, false, I, O, B, 1.0f, in.dz.data(), I, p.h.data(), O, 0.0f, p.dw2.data(), O);
  cpu.column_sums(in.dz.data(), B, I, p.db2.data());
  cpu.gemm(false, false, B, O, I, 1.0f, in.dz.data(), I, in.w2.data(), O, 0.0f, p.dh.data(), O);
  cpu.relu_backward(p.dh.data(), relu, B * O);
  cpu.gemm(true, false, O, I, B, 1.0f, p.dh.data(), O, in.x.data(), I, 0.0f, p.dw1.data(), I);
  cpu.column_sums(p.dh.data(), B, O, p.db1.data());
  cpu.gemm(false, false, B, I, O, 1.0f, p.dh.data(), O, in.w1.data(), I, 0.0f, p.dx.data(), I);
  return p;
}

}  // namespace

std::string_view name(LayerKind kind) {
  switch (kind) {
    case LayerKind::column: return "column";
    case LayerKind::row: return "row";
    case LayerKind::mlp: return "mlp";
  }
  return "?";
}

std::optional<LayerKind> parse_layer(std::string_view text) {
  for (LayerKind k : {LayerKind::column, LayerKind::row, LayerKind::mlp}) {
    if (text == name(k)) return k;
  }
  return std::nullopt;
}

void check_divisible(LayerKind kind, const LayerShape& s, int group) {
  const auto g = static_cast<std::size_t>(group);
  if (s.in == 0 || s.out == 0 || s.batch == 0) {
    throw usage_error(
        fmt::format("--in {} --out {} --batch {}: a layer needs all three above 0", s.in, s.out, s.batch));
  }
  const bool splits_out = kind != LayerKind::row;
  const std::size_t split = splits_out ? s.out : s.in;
  if (split % g != 0) {
    throw usage_error(fmt::format("the {} layer splits its {} features ({}) over the group of {}: use a multiple of {}",
                                  name(kind), splits_out ? "output (--out)" : "input (--in)", split, group, group));
  }
}

std::uint64_t layer_bytes(LayerKind kind, const LayerShape& s, int group) {
  const std::uint64_t g = static_cast<std::uint64_t>(group), io = s.in * s.out;
  const std::uint64_t acts = s.batch * (s.in + s.out);
  switch (kind) {
    case LayerKind::column: return 4 * (2 * io / g + 2 * s.out / g + 2 * acts);
    case LayerKind::row: return 4 * (2 * io / g + 2 * s.out + 3 * acts);
    case LayerKind::mlp: return 4 * (4 * io / g + 2 * (s.out / g + s.in) + 3 * acts);
  }
  return 0;
}

struct ParallelLayer::Buffers {
  std::map<std::string, std::unique_ptr<Buffer>, std::less<>> named;
  float* operator()(std::string_view n) { return static_cast<float*>(named.find(n)->second->data()); }
};

ParallelLayer::ParallelLayer(LayerKind kind, const LayerShape& shape, Communicator& group, Device& device,
                             DenseMath& math, std::uint64_t seed)
    : kind_(kind),
      shape_(shape),
      group_(group),
      device_(device),
      math_(math),
      seed_(seed),
      g_(group.size()),
      me_(group.rank()),
      b_(std::make_unique<Buffers>()) {
  check_divisible(kind, shape, g_);
  const FullTensors t = full_tensors(kind, shape, seed);
  make_buffer("x", shape.batch * shape.in, &t.x);
  make_buffer("dx", shape.batch * shape.in);
  switch (kind) {
    case LayerKind::mlp: make_mlp_buffers(t); break;
    case LayerKind::column: make_column_buffers(t); break;
    case LayerKind::row: make_row_buffers(t); break;
  }
}

void ParallelLayer::make_buffer(const std::string& n, std::size_t elements, const std::vector<float>* values) {
  auto buf = device_.allocate(std::max<std::size_t>(elements, 1) * sizeof(float));
  if (values != nullptr) math_.upload(buf->data(), values->data(), elements * sizeof(float));
  b_->named.emplace(n, std::move(buf));
}

void ParallelLayer::make_mlp_buffers(const FullTensors& t) {
  const std::size_t I = shape_.in, B = shape_.batch, Og = shape_.out / static_cast<std::size_t>(g_);
  const std::size_t me = static_cast<std::size_t>(me_);
  const auto w1r = rows_of(t.w, I, me * Og, Og), b1r = rows_of(t.b, 1, me * Og, Og);
  const auto w2r = cols_of(t.w2, shape_.out, me * Og, Og);
  make_buffer("w1", Og * I, &w1r);
  make_buffer("b1", Og, &b1r);
  make_buffer("w2", I * Og, &w2r);
  make_buffer("b2", I, &t.b2);
  make_buffer("dz", B * I, &t.dy);
  for (const char* n : {"h", "dh"}) make_buffer(n, B * Og);
  make_buffer("z", B * I);
  make_buffer("dw1", Og * I);
  make_buffer("db1", Og);
  make_buffer("dw2", I * Og);
  make_buffer("db2", I);
}

void ParallelLayer::make_column_buffers(const FullTensors& t) {
  const std::size_t I = shape_.in, B = shape_.batch, Og = shape_.out / static_cast<std::size_t>(g_);
  const std::size_t me = static_cast<std::size_t>(me_);
  const auto wr = rows_of(t.w, I, me * Og, Og), br = rows_of(t.b, 1, me * Og, Og);
  const auto dyr = cols_of(t.dy, shape_.out, me * Og, Og);
  make_buffer("w", Og * I, &wr);
  make_buffer("b", Og, &br);
  make_buffer("dy", B * Og, &dyr);
  make_buffer("y", B * Og);
  make_buffer("dw", Og * I);
  make_buffer("db", Og);
}

void ParallelLayer::make_row_buffers(const FullTensors& t) {
  const std::size_t I = shape_.in, O = shape_.out, B = shape_.batch, Ig = I / static_cast<std::size_t>(g_);
  const auto wr = cols_of(t.w, I, static_cast<std::size_t>(me_) * Ig, Ig);
  make_buffer("w", O * Ig, &wr);
  make_buffer("b", O, &t.b);
  make_buffer("dy", B * O, &t.dy);
  make_buffer("y", B * O);
  make_buffer("dw", O * Ig);
  make_buffer("db", O);
  make_buffer("xr", B * Ig);
  make_buffer("dxr", B * Ig);
  make_buffer("staging", B * I);
}

ParallelLayer::~ParallelLayer() = default;

double ParallelLayer::flops() const {
  const double per = 6.0 * static_cast<double>(shape_.batch * shape_.in * shape_.out) / g_;  // fwd + 2 bwd products
  return kind_ == LayerKind::mlp ? 2 * per : per;
}

void ParallelLayer::allreduce(std::string_view buffer, std::size_t n, std::vector<std::size_t>& marks,
                              Seconds timeout) {
  marks.push_back(math_.mark());
  const BufferRef at{b_->named.find(buffer)->second.get(), 0};
  group_.start({Collective::allreduce, at, at, n, DType::float32, ReduceOp::sum, 0})->wait(timeout);
  marks.push_back(math_.mark());
}

void ParallelLayer::forward(std::vector<std::size_t>& marks, Seconds timeout) {
  Buffers& p = *b_;
  const std::size_t I = shape_.in, O = shape_.out, B = shape_.batch, G = static_cast<std::size_t>(g_);
  switch (kind_) {
    case LayerKind::column: {  // copy(x) is the identity; y stays sharded on its columns
      const std::size_t Og = O / G;
      math_.gemm(false, true, B, Og, I, 1.0f, p("x"), I, p("w"), I, 0.0f, p("y"), Og);
      math_.add_bias(p("y"), p("b"), B, Og, false);
      return;
    }
    case LayerKind::row: {  // scatter(x, -1), partial products, reduce, then the whole bias
      const std::size_t Ig = I / G;
      math_.copy_rows(p("xr"), Ig * 4, p("x") + static_cast<std::size_t>(me_) * Ig, I * 4, Ig * 4, B);
      math_.gemm(false, true, B, O, Ig, 1.0f, p("xr"), Ig, p("w"), Ig, 0.0f, p("y"), O);
      allreduce("y", B * O, marks, timeout);
      math_.add_bias(p("y"), p("b"), B, O, false);
      return;
    }
    case LayerKind::mlp: {
      const std::size_t Og = O / G;
      math_.gemm(false, true, B, Og, I, 1.0f, p("x"), I, p("w1"), I, 0.0f, p("h"), Og);
      math_.add_bias(p("h"), p("b1"), B, Og, true);
      math_.gemm(false, true, B, I, Og, 1.0f, p("h"), Og, p("w2"), Og, 0.0f, p("z"), I);
      allreduce("z", B * I, marks, timeout);
      math_.add_bias(p("z"), p("b2"), B, I, false);
      return;
    }
  }
}

void ParallelLayer::backward(std::vector<std::size_t>& marks, Seconds timeout) {
  Buffers& p = *b_;
  const std::size_t I = shape_.in, O = shape_.out, B = shape_.batch, G = static_cast<std::size_t>(g_);
  switch (kind_) {
    case LayerKind::column: {  // copy's backward: the input gradient summed over the group
      const std::size_t Og = O / G;
      math_.gemm(true, false, Og, I, B, 1.0f, p("dy"), Og, p("x"), I, 0.0f, p("dw"), I);
      math_.column_sums(p("dy"), B, Og, p("db"));
      math_.gemm(false, false, B, I, Og, 1.0f, p("dy"), Og, p("w"), I, 0.0f, p("dx"), I);
      allreduce("dx", B * I, marks, timeout);
      return;
    }
    case LayerKind::row: {  // reduce's backward is the identity; scatter's is an all-gather of the input gradient
      const std::size_t Ig = I / G;
      math_.gemm(true, false, O, Ig, B, 1.0f, p("dy"), O, p("xr"), Ig, 0.0f, p("dw"), Ig);
      math_.column_sums(p("dy"), B, O, p("db"));
      math_.gemm(false, false, B, Ig, O, 1.0f, p("dy"), O, p("w"), Ig, 0.0f, p("dxr"), Ig);
      marks.push_back(math_.mark());
      Buffer& dxr = *p.named.find("dxr")->second;
      Buffer& staging = *p.named.find("staging")->second;
      group_.start({Collective::allgather, {&dxr, 0}, {&staging, 0}, B * Ig, DType::float32, ReduceOp::sum, 0})
          ->wait(timeout);
      for (std::size_t g = 0; g < G; ++g) {  // rank g's B x I/G block becomes its columns of dx
        math_.copy_rows(p("dx") + g * Ig, I * 4, p("staging") + g * B * Ig, Ig * 4, Ig * 4, B);
      }
      marks.push_back(math_.mark());
      return;
    }
    case LayerKind::mlp: {
      const std::size_t Og = O / G;
      math_.gemm(true, false, I, Og, B, 1.0f, p("dz"), I, p("h"), Og, 0.0f, p("dw2"), Og);
      math_.column_sums(p("dz"), B, I, p("db2"));
      math_.gemm(false, false, B, Og, I, 1.0f, p("dz"), I, p("w2"), Og, 0.0f, p("dh"), Og);
      math_.relu_backward(p("dh"), p("h"), B * Og);
      math_.gemm(true, false, Og, I, B, 1.0f, p("dh"), Og, p("x"), I, 0.0f, p("dw1"), I);
      math_.column_sums(p("dh"), B, Og, p("db1"));
      math_.gemm(false, false, B, I, Og, 1.0f, p("dh"), Og, p("w1"), I, 0.0f, p("dx"), I);
      allreduce("dx", B * I, marks, timeout);
      return;
    }
  }
}

LayerTimes ParallelLayer::step(Seconds timeout) {
  math_.synchronize();
  math_.reset_marks();
  std::vector<std::size_t> comm;  // pairs: before a collective started, after it was waited for
  forward(comm, timeout);
  const std::size_t forward_end = math_.mark();
  backward(comm, timeout);
  const std::size_t backward_end = math_.mark();
  math_.synchronize();
  const std::vector<double> at = math_.mark_seconds();
  LayerTimes t;
  t.forward = at[forward_end];
  t.backward = at[backward_end] - at[forward_end];
  for (std::size_t i = 0; i + 1 < comm.size(); i += 2) t.comm += at[comm[i + 1]] - at[comm[i]];
  return t;
}

LayerCheck ParallelLayer::check(int cpu_threads) {
  numerics::HostMath cpu(cpu_threads);
  const FullTensors t = full_tensors(kind_, shape_, seed_);
  LayerCheck c;
  if (kind_ == LayerKind::mlp) {
    check_mlp(cpu, t, c);
  } else {
    check_linear(cpu, t, c);
  }
  return c;
}

std::vector<float> ParallelLayer::downloaded(std::string_view n, std::size_t elements) {
  std::vector<float> out(elements);
  math_.download(out.data(), (*b_)(n), elements * sizeof(float));
  return out;
}

double ParallelLayer::longest_chain() const {
  // Every element's longest chain, for all tensors alike: the products along in, out and batch, the ranks' partial
  // sums added across the group, two bias additions.
  return static_cast<double>(shape_.in + shape_.out + shape_.batch + static_cast<std::size_t>(g_) + 2);
}

void ParallelLayer::check_mlp(DenseMath& cpu, const FullTensors& t, LayerCheck& c) {
  const std::size_t I = shape_.in, B = shape_.batch, Og = shape_.out / static_cast<std::size_t>(g_);
  const std::size_t me = static_cast<std::size_t>(me_);
  const MlpPass ref = mlp_on_cpu(cpu, shape_, {t.x, t.w, t.b, t.w2, t.b2, t.dy}, nullptr);
  // The same on absolute values, through the reference's ReLU mask.
  const MlpPass mag = mlp_on_cpu(
      cpu, shape_, {abs_of(t.x), abs_of(t.w), abs_of(t.b), abs_of(t.w2), abs_of(t.b2), abs_of(t.dy)}, &ref.h);
  const double L = longest_chain();
  compare(downloaded("z", B * I), ref.z, mag.z, L, c);
  compare(downloaded("dw1", Og * I), rows_of(ref.dw1, I, me * Og, Og), rows_of(mag.dw1, I, me * Og, Og), L, c);
  compare(downloaded("db1", Og), rows_of(ref.db1, 1, me * Og, Og), rows_of(mag.db1, 1, me * Og, Og), L, c);
  compare(downloaded("dw2", I * Og), cols_of(ref.dw2, shape_.out, me * Og, Og),
          cols_of(mag.dw2, shape_.out, me * Og, Og), L, c);
  compare(downloaded("db2", I), ref.db2, mag.db2, L, c);
  compare(downloaded("dx", B * I), ref.dx, mag.dx, L, c);
}

void ParallelLayer::check_linear(DenseMath& cpu, const FullTensors& t, LayerCheck& c) {
  const std::size_t I = shape_.in, O = shape_.out, B = shape_.batch, G = static_cast<std::size_t>(g_);
  const std::size_t me = static_cast<std::size_t>(me_);
  const LinearPass ref = linear_on_cpu(cpu, shape_, t.x, t.w, t.b, t.dy);
  const LinearPass mag = linear_on_cpu(cpu, shape_, abs_of(t.x), abs_of(t.w), abs_of(t.b), abs_of(t.dy));
  const double L = longest_chain();
  if (kind_ == LayerKind::column) {
    const std::size_t Og = O / G;
    compare(downloaded("y", B * Og), cols_of(ref.y, O, me * Og, Og), cols_of(mag.y, O, me * Og, Og), L, c);
    compare(downloaded("dw", Og * I), rows_of(ref.dw, I, me * Og, Og), rows_of(mag.dw, I, me * Og, Og), L, c);
    compare(downloaded("db", Og), rows_of(ref.db, 1, me * Og, Og), rows_of(mag.db, 1, me * Og, Og), L, c);
  } else {
    const std::size_t Ig = I / G;
    compare(downloaded("y", B * O), ref.y, mag.y, L, c);
    compare(downloaded("dw", O * Ig), cols_of(ref.dw, I, me * Ig, Ig), cols_of(mag.dw, I, me * Ig, Ig), L, c);
    compare(downloaded("db", O), ref.db, mag.db, L, c);
  }
  compare(downloaded("dx", B * I), ref.dx, mag.dx, L, c);
}

ShownStep median_step(const std::vector<std::vector<double>>& steps, const std::vector<std::vector<double>>& forwards,
                      const std::vector<std::vector<double>>& backwards,
                      const std::vector<std::vector<double>>& comms) {
  std::size_t samples = steps.empty() ? 0 : steps.front().size();
  for (const auto& rank : steps) samples = std::min(samples, rank.size());
  if (samples == 0) return {};
  std::vector<std::pair<double, std::size_t>> slowest;  // (step, rank) per sample: the rank whose step took longest
  for (std::size_t s = 0; s < samples; ++s) {
    std::pair<double, std::size_t> worst{steps[0][s], 0};
    for (std::size_t r = 1; r < steps.size(); ++r) worst = std::max(worst, {steps[r][s], r});
    slowest.push_back(worst);
  }
  std::vector<std::size_t> order(samples);
  for (std::size_t s = 0; s < samples; ++s) order[s] = s;
  const auto middle = order.begin() + static_cast<std::ptrdiff_t>((samples - 1) / 2);
  std::nth_element(order.begin(), middle, order.end(),
                   [&](std::size_t a, std::size_t b) { return slowest[a].first < slowest[b].first; });
  const std::size_t s = *middle, r = slowest[s].second;
  return {slowest[s].first, {forwards.at(r).at(s), backwards.at(r).at(s), comms.at(r).at(s)}};
}

}  // namespace distbench::tp
