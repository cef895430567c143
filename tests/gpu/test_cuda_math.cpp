// The GPU's dense math (CudaMath: cuBLAS and kernels on one stream) against the CPU's (HostMath: OpenBLAS and
// loops) on the same inputs: matrix products in every transposition, the model's kernels, and the optimizers, which
// must be bit-identical (the same operations, each rounded on its own). And the ordering train relies on: a
// collective started after the math queued work sees that work done. Needs a GPU; skips with the reason where none.
#include "backends/nccl/nccl_backend.hpp"

#include "connectors/single_connector.hpp"
#include "core/device/half.hpp"
#include "core/device/host_device.hpp"
#include "numerics/host_math.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "tests/support/test_step.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace distbench::nccl {
namespace {

constexpr Seconds kTimeout{60.0};

struct Rig {
  connectors::SingleConnector connector;
  std::unique_ptr<Backend> backend = nccl_backend_entry().create(connector, BackendOptions{});
  Device& device = backend->device();
  DenseMath& gpu = *device.math();
  numerics::HostMath cpu{1};

  // A device copy of `host`, kept alive by the rig.
  float* on_gpu(const std::vector<float>& host) {
    buffers.push_back(device.allocate(std::max<std::size_t>(host.size(), 1) * sizeof(float)));
    auto* p = static_cast<float*>(buffers.back()->data());
    gpu.upload(p, host.data(), host.size() * sizeof(float));
    return p;
  }
  int* on_gpu(const std::vector<int>& host) {
    buffers.push_back(device.allocate(host.size() * sizeof(int)));
    auto* p = static_cast<int*>(buffers.back()->data());
    gpu.upload(p, host.data(), host.size() * sizeof(int));
    return p;
  }
  std::vector<float> back(const float* p, std::size_t n) {
    std::vector<float> out(n);
    gpu.download(out.data(), p, n * sizeof(float));
    return out;
  }
  std::vector<std::unique_ptr<Buffer>> buffers;
};

std::vector<float> values(std::size_t n, std::uint32_t seed) {
  std::vector<float> v(n);
  std::uint32_t x = seed * 2654435761u + 1;
  for (float& f : v) {
    x = x * 1664525u + 1013904223u;
    f = static_cast<float>(x >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f;
  }
  return v;
}

double worst_relative(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double scale = std::max({std::abs(static_cast<double>(a[i])), std::abs(static_cast<double>(b[i])), 1e-3});
    worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]) / scale);
  }
  return worst;
}

TEST(CudaMath, GemmMatchesTheCpuInEveryTransposition) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  Rig r;
  const std::size_t m = 37, n = 53, k = 71;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      // Row-major op(A) m x k, op(B) k x n; the stored matrices are their transposes when trans.
      const std::size_t lda = ta ? m : k, ldb = tb ? k : n;
      const auto a = values(m * k, 1), b = values(k * n, 2), c0 = values(m * n, 3);
      std::vector<float> c = c0;
      r.cpu.gemm(ta, tb, m, n, k, 0.5f, a.data(), lda, b.data(), ldb, 2.0f, c.data(), n);
      float* gc = r.on_gpu(c0);
      r.gpu.gemm(ta, tb, m, n, k, 0.5f, r.on_gpu(a), lda, r.on_gpu(b), ldb, 2.0f, gc, n);
      EXPECT_LT(worst_relative(r.back(gc, m * n), c), 1e-4) << "trans_a " << ta << ", trans_b " << tb;
    }
  }
}

TEST(CudaMath, TheModelsKernelsMatchTheCpu) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  Rig r;
  const std::size_t rows = 33, cols = 17;
  const auto z0 = values(rows * cols, 4), bias = values(cols, 5);
  for (bool relu : {false, true}) {
    std::vector<float> z = z0;
    r.cpu.add_bias(z.data(), bias.data(), rows, cols, relu);
    float* gz = r.on_gpu(z0);
    r.gpu.add_bias(gz, r.on_gpu(bias), rows, cols, relu);
    EXPECT_EQ(r.back(gz, z.size()), z) << "relu " << relu;
  }
  std::vector<float> sums(cols);
  r.cpu.column_sums(z0.data(), rows, cols, sums.data());
  float* gs = r.on_gpu(std::vector<float>(cols, 7.0f));
  r.gpu.column_sums(r.on_gpu(z0), rows, cols, gs);
  EXPECT_LT(worst_relative(r.back(gs, cols), sums), 1e-5);

  std::vector<float> g = values(rows * cols, 6);
  float* gg = r.on_gpu(g);
  r.cpu.relu_backward(g.data(), z0.data(), g.size());
  r.gpu.relu_backward(gg, r.on_gpu(z0), g.size());
  EXPECT_EQ(r.back(gg, g.size()), g);

  std::vector<int> labels(rows);
  for (std::size_t i = 0; i < rows; ++i) labels[i] = static_cast<int>(i * 7 % cols);
  std::vector<float> p = z0, loss(rows);
  r.cpu.softmax_cross_entropy(p.data(), labels.data(), rows, cols, loss.data());
  float* gp = r.on_gpu(z0);
  float* gl = r.on_gpu(std::vector<float>(rows));
  const int* glab = r.on_gpu(labels);
  r.gpu.softmax_cross_entropy(gp, glab, rows, cols, gl);
  EXPECT_LT(worst_relative(r.back(gp, p.size()), p), 1e-5);
  EXPECT_LT(worst_relative(r.back(gl, rows), loss), 1e-5);
  r.cpu.cross_entropy_backward(p.data(), labels.data(), rows, cols, 0.25f);
  r.gpu.cross_entropy_backward(gp, glab, rows, cols, 0.25f);
  EXPECT_LT(worst_relative(r.back(gp, p.size()), p), 1e-5);
}

TEST(CudaMath, OptimizersAreBitIdenticalToTheCpu) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  Rig r;
  const std::size_t n = 100003;
  const auto p0 = values(n, 7);
  std::vector<float> p = p0, v(n, 0.0f), m(n, 0.0f), s(n, 0.0f);
  float* gp = r.on_gpu(p0);
  float* gv = r.on_gpu(v);
  for (int step = 1; step <= 3; ++step) {
    const auto g = values(n, 10 + static_cast<std::uint32_t>(step));
    r.cpu.sgd(p.data(), g.data(), v.data(), n, 0.01f, 0.9f);
    r.gpu.sgd(gp, r.on_gpu(g), gv, n, 0.01f, 0.9f);
  }
  EXPECT_EQ(r.back(gp, n), p) << "SGD";
  EXPECT_EQ(r.back(gv, n), v) << "SGD's velocity";

  p = p0;
  gp = r.on_gpu(p0);
  float* gm = r.on_gpu(m);
  float* gs = r.on_gpu(s);
  AdamStep adam;
  adam.grad_scale = 0.5f;
  for (int step = 1; step <= 3; ++step) {
    adam.step = step;
    const auto g = values(n, 20 + static_cast<std::uint32_t>(step));
    r.cpu.adam(adam, g.data(), p.data(), m.data(), s.data(), n);
    r.gpu.adam(adam, r.on_gpu(g), gp, gm, gs, n);
  }
  EXPECT_EQ(r.back(gp, n), p) << "Adam";
  EXPECT_EQ(r.back(gm, n), m) << "Adam's m";
  EXPECT_EQ(r.back(gs, n), s) << "Adam's v";
}

// ZeRO's update: fp32 master weights beside bfloat16, float16 or float32 parameters, over masters that round to
// 16-bit subnormals, to the largest finite half and past it, and signed zero.
TEST(CudaMath, MixedPrecisionAdamIsBitIdenticalToTheCpu) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  Rig r;
  const std::size_t n = 70001;
  std::vector<float> master0 = values(n, 31);
  const float special[] = {1e-6f, 3e-8f, 6e-8f, 65519.0f, 65520.0f, 1e5f, -0.0f, 1e-40f};
  for (std::size_t i = 0; i < std::size(special); ++i) master0[i * 11] = special[i];
  for (const DType type : {DType::bfloat16, DType::float16, DType::float32}) {
    const std::size_t g = size_of(type);
    std::vector<float> master = master0, m(n, 0.0f), v(n, 0.0f);
    std::vector<std::byte> params(n * g), grads(n * g);
    float* gmaster = r.on_gpu(master0);
    float* gm = r.on_gpu(m);
    float* gv = r.on_gpu(v);
    auto gparams = r.device.allocate(n * g);
    auto ggrads = r.device.allocate(n * g);
    AdamStep adam;
    adam.grad_scale = 0.25f;
    for (int step = 1; step <= 3; ++step) {
      adam.step = step;
      const auto gf = values(n, 40 + static_cast<std::uint32_t>(step));
      for (std::size_t i = 0; i < n; ++i) {
        const float x = gf[i] * 4.0f;
        if (type == DType::float32) {
          std::memcpy(grads.data() + i * 4, &x, 4);
        } else {
          const std::uint16_t h = type == DType::bfloat16 ? float_to_bfloat16(x) : float_to_half(x);
          std::memcpy(grads.data() + i * 2, &h, 2);
        }
      }
      r.gpu.upload(ggrads->data(), grads.data(), grads.size());
      r.cpu.mixed_adam(adam, type, grads.data(), master.data(), m.data(), v.data(), params.data(), n);
      r.gpu.mixed_adam(adam, type, ggrads->data(), gmaster, gm, gv, gparams->data(), n);
    }
    // A fourth step from element 1 on: a run that starts off the vectors' boundaries (the kernel's head and tail).
    adam.step = 4;
    r.cpu.mixed_adam(adam, type, grads.data() + g, master.data() + 1, m.data() + 1, v.data() + 1, params.data() + g,
                     n - 1);
    r.gpu.mixed_adam(adam, type, static_cast<std::byte*>(ggrads->data()) + g, gmaster + 1, gm + 1, gv + 1,
                     static_cast<std::byte*>(gparams->data()) + g, n - 1);
    std::vector<std::byte> gpu_params(n * g);
    r.gpu.download(gpu_params.data(), gparams->data(), gpu_params.size());
    const auto bits = [](const std::vector<float>& f) {
      std::vector<std::uint32_t> out(f.size());
      std::memcpy(out.data(), f.data(), f.size() * 4);
      return out;
    };
    EXPECT_EQ(bits(r.back(gmaster, n)), bits(master)) << name(type) << " master";
    EXPECT_EQ(bits(r.back(gm, n)), bits(m)) << name(type) << " m";
    EXPECT_EQ(bits(r.back(gv, n)), bits(v)) << name(type) << " v";
    EXPECT_TRUE(gpu_params == params) << name(type) << " parameters";
  }
}

TEST(CudaMath, Bfloat16ConversionsAreBitIdenticalToTheCpu) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  Rig r;
  std::vector<float> x = values(4099, 9);
  // ties (to even, both ways), the largest finite, infinities, a NaN, signed zero
  for (std::uint32_t bits :
       {0x3f808000u, 0x3f818000u, 0x7f7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00001u, 0x80000000u}) {
    x.push_back(std::bit_cast<float>(bits));
  }
  std::vector<std::uint16_t> cpu16(x.size());
  r.cpu.to_bfloat16(x.data(), cpu16.data(), x.size());
  auto b16 = r.device.allocate(x.size() * sizeof(std::uint16_t));
  auto* g16 = static_cast<std::uint16_t*>(b16->data());
  r.gpu.to_bfloat16(r.on_gpu(x), g16, x.size());
  std::vector<std::uint16_t> gpu16(x.size());
  r.gpu.download(gpu16.data(), g16, gpu16.size() * sizeof(std::uint16_t));
  EXPECT_EQ(gpu16, cpu16);
  std::vector<float> cpu(x.size());
  r.cpu.from_bfloat16(cpu16.data(), cpu.data(), x.size());
  float* back = r.on_gpu(std::vector<float>(x.size()));
  r.gpu.from_bfloat16(g16, back, x.size());
  const std::vector<float> gpu = r.back(back, x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint32_t>(gpu[i]), std::bit_cast<std::uint32_t>(cpu[i])) << i;
  }
}

TEST(CudaMath, CopyRowsMovesABlockLikeTheCpu) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  Rig r;
  const std::size_t rows = 7, cols = 12;  // the middle 5 columns of every row into a 7 x 5 block
  const auto m = values(rows * cols, 11);
  std::vector<float> cpu(rows * 5);
  r.cpu.copy_rows(cpu.data(), 5 * 4, m.data() + 3, cols * 4, 5 * 4, rows);
  float* out = r.on_gpu(std::vector<float>(rows * 5));
  r.gpu.copy_rows(out, 5 * 4, r.on_gpu(m) + 3, cols * 4, 5 * 4, rows);
  EXPECT_EQ(r.back(out, cpu.size()), cpu);
  EXPECT_EQ(cpu[5], m[cols + 3]);
}

TEST(CudaMath, ACollectiveSeesWhatTheMathQueuedBeforeIt) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  Rig r;
  auto comm = r.backend->create_communicator(world_partition(1), test_step());
  const std::size_t n = std::size_t{32} << 20;  // 128 MiB: the queued kernels take milliseconds
  auto in = r.device.allocate(n * sizeof(float));
  auto out = r.device.allocate(n * sizeof(float));
  const std::vector<float> zeros(n, 0.0f), one(1, 1.0f);
  auto* x = static_cast<float*>(in->data());
  r.gpu.upload(x, zeros.data(), n * sizeof(float));
  r.gpu.upload(out->data(), zeros.data(), n * sizeof(float));
  const float* bias = r.on_gpu(one);
  r.gpu.synchronize();
  const int kAdds = 20;
  for (int i = 0; i < kAdds; ++i) r.gpu.add_bias(x, bias, n, 1, false);  // not waited for by the host
  auto work = comm->start({Collective::allreduce, {in.get(), 0}, {out.get(), 0}, n, DType::float32, ReduceOp::sum, 0});
  work->wait(kTimeout);
  const std::vector<float> got = r.back(static_cast<const float*>(out->data()), n);
  std::size_t wrong = 0;
  for (float f : got) wrong += f != static_cast<float>(kAdds);
  EXPECT_EQ(wrong, 0U) << "elements the allreduce read before the math had written them";
}

TEST(CudaMath, MarksFollowTheQueue) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  Rig r;
  const std::size_t n = std::size_t{8} << 20;
  float* x = r.on_gpu(std::vector<float>(n, 1.0f));
  const float* bias = r.on_gpu(std::vector<float>(1, 1.0f));
  r.gpu.synchronize();
  r.gpu.reset_marks();
  std::vector<std::size_t> marks;
  for (int i = 0; i < 5; ++i) {
    r.gpu.add_bias(x, bias, n, 1, false);
    marks.push_back(r.gpu.mark());
  }
  r.gpu.synchronize();
  const auto at = r.gpu.mark_seconds();
  ASSERT_EQ(at.size(), 5U);
  for (std::size_t i = 1; i < at.size(); ++i) EXPECT_GT(at[i], at[i - 1]) << "mark " << i;
  EXPECT_GT(at.front(), 0.0);
}

}  // namespace
}  // namespace distbench::nccl
