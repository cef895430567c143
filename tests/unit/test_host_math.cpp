// DenseMath on the CPU (numerics/host_math): its products are the plain ones for every transpose, and its Adam steps
// are the fused update's, bit for bit.
#include "core/device/dense_math.hpp"
#include "numerics/adam.hpp"
#include "numerics/host_math.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <vector>

namespace distbench::numerics {
namespace {

// Row-major m x n with explicit stride, read as op(X) when `trans` (X then n x m).
float at(const std::vector<float>& x, bool trans, std::size_t ld, std::size_t r, std::size_t c) {
  return trans ? x[c * ld + r] : x[r * ld + c];
}

TEST(HostMath, GemmIsThePlainProductForEveryTranspose) {
  const std::size_t m = 3, n = 4, k = 5;
  HostMath math(1);
  for (const bool ta : {false, true}) {
    for (const bool tb : {false, true}) {
      // Small integers: every sum is exact in float, whatever order BLAS adds in.
      const std::size_t lda = ta ? m : k, ldb = tb ? k : n;
      std::vector<float> a(m * k), b(k * n), c(m * n, 1.0f);
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
      for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
      math.gemm(ta, tb, m, n, k, 2.0f, a.data(), lda, b.data(), ldb, 1.0f, c.data(), n);
      for (std::size_t r = 0; r < m; ++r) {
        for (std::size_t col = 0; col < n; ++col) {
          float want = 1.0f;
          for (std::size_t j = 0; j < k; ++j) want += 2.0f * at(a, ta, lda, r, j) * at(b, tb, ldb, j, col);
          EXPECT_EQ(c[r * n + col], want) << ta << tb << " " << r << "," << col;
        }
      }
    }
  }
}

TEST(HostMath, AdamStepsAreTheFusedUpdateBitForBit) {
  const std::size_t n = 257;
  std::vector<float> g(n), w(n), m(n, 0.0f), v(n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    g[i] = static_cast<float>(static_cast<int>(i % 9) - 4) * 0.3f;
    w[i] = 0.5f + static_cast<float>(i % 7) * 0.125f;
  }
  std::vector<float> w2 = w, m2 = m, v2 = v;
  HostMath math(2);
  AdamStep step;
  step.lr = 0.01f;
  step.grad_scale = 0.5f;
  AdamConfig config;
  config.lr = 0.01f;
  config.grad_scale = 0.5f;
  for (step.step = 1; step.step <= 3; ++step.step) {
    math.adam(step, g.data(), w.data(), m.data(), v.data(), n);
    adam_update(config, step.step, DType::float32, g.data(), w2.data(), m2.data(), v2.data(), nullptr, n);
  }
  EXPECT_EQ(std::memcmp(w.data(), w2.data(), n * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(m.data(), m2.data(), n * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(v.data(), v2.data(), n * sizeof(float)), 0);
}

}  // namespace
}  // namespace distbench::numerics
