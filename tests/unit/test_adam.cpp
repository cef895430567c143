// The fused Adam update (numerics/adam): bit-identical over partitions, threads and vector widths; each parameter type.
#include "core/device/half.hpp"
#include "core/error.hpp"
#include "numerics/adam.hpp"
#include "numerics/adam_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace distbench::numerics {
namespace {

// Gradients of an exact pattern: small integers (their sums over ranks are exact in 16 bits), as bf16.
std::vector<std::uint16_t> bf16_grads(std::size_t n) {
  std::vector<std::uint16_t> g(n);
  for (std::size_t i = 0; i < n; ++i) g[i] = float_to_bfloat16(static_cast<float>(static_cast<int>(i % 9) - 4));
  return g;
}

struct AdamState {
  std::vector<float> master, m, v;
  std::vector<std::uint16_t> param;
  explicit AdamState(std::size_t n) : master(n), m(n, 0.0f), v(n, 0.0f), param(n) {
    for (std::size_t i = 0; i < n; ++i) master[i] = 0.5f + static_cast<float>(i % 7) * 0.125f;
  }
};

TEST(Adam, AnyPartitionGivesBitIdenticalResults) {
  // The same elements updated in one pass, or in shards of any size (the loop's vector body and tail differ), for
  // three steps: every bit of master, m, v and the parameters agrees.
  const std::size_t n = 1000;
  const auto grads = bf16_grads(n);
  AdamConfig c;
  c.grad_scale = 0.25f;
  AdamState whole(n);
  for (int step = 1; step <= 3; ++step) {
    adam_update(c, step, DType::bfloat16, grads.data(), whole.master.data(), whole.m.data(), whole.v.data(),
                whole.param.data(), n);
  }
  for (std::size_t shard : {1U, 3U, 7U, 64U, 333U}) {
    AdamState parts(n);
    for (int step = 1; step <= 3; ++step) {
      for (std::size_t at = 0; at < n; at += shard) {
        const std::size_t k = std::min(shard, n - at);
        adam_update(c, step, DType::bfloat16, grads.data() + at, parts.master.data() + at, parts.m.data() + at,
                    parts.v.data() + at, parts.param.data() + at, k);
      }
    }
    EXPECT_EQ(std::memcmp(parts.master.data(), whole.master.data(), n * sizeof(float)), 0) << shard;
    EXPECT_EQ(std::memcmp(parts.m.data(), whole.m.data(), n * sizeof(float)), 0) << shard;
    EXPECT_EQ(std::memcmp(parts.v.data(), whole.v.data(), n * sizeof(float)), 0) << shard;
    EXPECT_EQ(parts.param, whole.param) << shard;
  }
}

TEST(Adam, ThreadsDoNotChangeABit) {
  const std::size_t n = (std::size_t{1} << 19) + 77;  // two threads' worth and an odd tail
  const auto grads = bf16_grads(n);
  AdamState one(n), three(n);
  AdamConfig c;
  adam_update(c, 1, DType::bfloat16, grads.data(), one.master.data(), one.m.data(), one.v.data(), one.param.data(), n);
  c.threads = 3;
  adam_update(c, 1, DType::bfloat16, grads.data(), three.master.data(), three.m.data(), three.v.data(),
              three.param.data(), n);
  EXPECT_EQ(std::memcmp(one.master.data(), three.master.data(), n * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(one.v.data(), three.v.data(), n * sizeof(float)), 0);
  EXPECT_EQ(one.param, three.param);
}

TEST(Adam, FirstStepMovesEachWeightByTheLearningRateAgainstItsGradient) {
  // After one step from m = v = 0 the bias-corrected moments are g and g^2: the update is lr * g / (|g| + eps).
  const std::size_t n = 9;
  const auto grads = bf16_grads(n);
  AdamState s(n);
  const auto before = s.master;
  AdamConfig c;
  c.lr = 0.01f;
  adam_update(c, 1, DType::bfloat16, grads.data(), s.master.data(), s.m.data(), s.v.data(), s.param.data(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const float g = bfloat16_to_float(grads[i]);
    const double expected = before[i] - (g == 0.0f ? 0.0 : 0.01 * (g > 0 ? 1 : -1));
    EXPECT_NEAR(s.master[i], expected, 1e-6) << i;
    EXPECT_EQ(s.param[i], float_to_bfloat16(s.master[i])) << i;  // the 16-bit copy is the rounded master weight
  }
}

TEST(Adam, Fp32AndFp16ParametersAndTheBytesMoved) {
  const std::size_t n = 4;
  std::vector<float> g32{1, -2, 0, 3}, master(n, 1.0f), m(n, 0.0f), v(n, 0.0f), p32(n);
  adam_update({}, 1, DType::float32, g32.data(), master.data(), m.data(), v.data(), p32.data(), n);
  EXPECT_EQ(p32, master);
  std::vector<std::uint16_t> g16(n), p16(n);
  for (std::size_t i = 0; i < n; ++i) g16[i] = float_to_half(g32[i]);
  std::vector<float> master2(n, 1.0f), m2(n, 0.0f), v2(n, 0.0f);
  adam_update({}, 1, DType::float16, g16.data(), master2.data(), m2.data(), v2.data(), p16.data(), n);
  EXPECT_EQ(master2, master);  // the same gradients give the same fp32 state
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(p16[i], float_to_half(master2[i]));
  EXPECT_EQ(adam_bytes_moved(DType::bfloat16, 10), 10U * (2 * 2 + 6 * 4));
  EXPECT_EQ(adam_bytes_moved(DType::float32, 10), 10U * (2 * 4 + 6 * 4));
}

// The vectorised update (SSE2, or the AVX2 clone where the CPU has it) does exactly the scalar IEEE operations, in the
// same order: bit-identical to this plain loop, whatever the machine.
TEST(Adam, VectorisedUpdateIsTheScalarArithmeticBitForBit) {
  const std::size_t n = 4099;  // not a multiple of any vector width: the tail runs too
  std::vector<float> g(n), w(n), m(n, 0.0f), v(n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    g[i] = static_cast<float>(static_cast<int>(i % 9) - 4) * 0.37f;
    w[i] = 0.5f + static_cast<float>(i % 7) * 0.125f;
  }
  std::vector<float> ws = w, ms = m, vs = v;
  AdamConfig c;
  c.grad_scale = 0.5f;
  for (int step = 1; step <= 3; ++step) {
    adam_update(c, step, DType::float32, g.data(), w.data(), m.data(), v.data(), nullptr, n);
    const float bc1 = 1.0f - std::pow(c.beta1, static_cast<float>(step));
    const float bc2 = 1.0f - std::pow(c.beta2, static_cast<float>(step));
    const float step_size = c.lr / bc1, inv_bc2 = 1.0f / bc2;
    for (std::size_t i = 0; i < n; ++i) {
      const float gi = g[i] * c.grad_scale;
      ms[i] = c.beta1 * ms[i] + (1.0f - c.beta1) * gi;
      vs[i] = c.beta2 * vs[i] + (1.0f - c.beta2) * (gi * gi);
      ws[i] = ws[i] - step_size * ms[i] / (std::sqrt(vs[i] * inv_bc2) + c.eps);
    }
  }
  EXPECT_EQ(std::memcmp(w.data(), ws.data(), n * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(m.data(), ms.data(), n * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(v.data(), vs.data(), n * sizeof(float)), 0);
}

TEST(Adam, Fp32WithoutASeparateParameterCopyGivesTheSameMasterWeights) {
  const std::size_t n = 1000;
  std::vector<float> g(n), a(n, 0.75f), b(n, 0.75f), ma(n, 0), va(n, 0), mb(n, 0), vb(n, 0), p(n);
  for (std::size_t i = 0; i < n; ++i) g[i] = static_cast<float>(static_cast<int>(i % 9) - 4);
  for (int step = 1; step <= 3; ++step) {
    adam_update({}, step, DType::float32, g.data(), a.data(), ma.data(), va.data(), p.data(), n);
    adam_update({}, step, DType::float32, g.data(), b.data(), mb.data(), vb.data(), nullptr, n);
  }
  EXPECT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(float)), 0);
  EXPECT_EQ(adam_bytes_moved(DType::float32, 10, false), 10U * (4 + 6 * 4));
  EXPECT_THROW(adam_update({}, 1, DType::bfloat16, g.data(), a.data(), ma.data(), va.data(), nullptr, n), Error);
}

// zero --check's check of Adam itself (numerics/adam_check): the update passes its closed form; updates with a wrong
// bias correction, written here from Adam's formulas (sharing nothing with adam.cpp), fail it.
enum class AdamBias { right, next_step, none, swapped };

AdamUpdate scalar_adam_with(AdamBias bias) {
  return [bias](const AdamConfig& c, int step, DType type, const void* grad, float* master, float* m, float* v,
                void* param, std::size_t n) {
    const auto t = static_cast<float>(bias == AdamBias::next_step ? step + 1 : step);
    float bc1 = 1.0f - std::pow(c.beta1, t), bc2 = 1.0f - std::pow(c.beta2, t);
    if (bias == AdamBias::none) bc1 = bc2 = 1.0f;
    if (bias == AdamBias::swapped) std::swap(bc1, bc2);
    for (std::size_t i = 0; i < n; ++i) {
      const float g = (type == DType::float32 ? static_cast<const float*>(grad)[i]
                                              : bfloat16_to_float(static_cast<const std::uint16_t*>(grad)[i])) *
                      c.grad_scale;
      m[i] = c.beta1 * m[i] + (1.0f - c.beta1) * g;
      v[i] = c.beta2 * v[i] + (1.0f - c.beta2) * g * g;
      master[i] -= c.lr * (m[i] / bc1) / (std::sqrt(v[i] / bc2) + c.eps);
      if (param != nullptr) static_cast<std::uint16_t*>(param)[i] = float_to_bfloat16(master[i]);
    }
  };
}

TEST(AdamFormula, TheUpdatePassesItsClosedForm) {
  EXPECT_EQ(adam_formula_mismatch(adam_update, AdamHyperparameters{}), std::nullopt);
  AdamHyperparameters other;
  other.lr = 0.05f;
  other.beta1 = 0.8f;
  other.beta2 = 0.99f;
  EXPECT_EQ(adam_formula_mismatch(adam_update, other), std::nullopt);
  // An independent implementation of the right formulas passes too: the bound is not the update's own rounding.
  EXPECT_EQ(adam_formula_mismatch(scalar_adam_with(AdamBias::right), AdamHyperparameters{}), std::nullopt);
}

TEST(AdamFormula, AWrongBiasCorrectionFailsIt) {
  for (const auto& [bias, label] : {std::pair{AdamBias::next_step, "1 - beta^(t+1)"}, std::pair{AdamBias::none, "none"},
                                    std::pair{AdamBias::swapped, "beta1 and beta2 swapped"}}) {
    const auto wrong = adam_formula_mismatch(scalar_adam_with(bias), AdamHyperparameters{});
    ASSERT_TRUE(wrong.has_value()) << "a bias correction of " << label << " survived the check";
    EXPECT_NE(wrong->find("master weight"), std::string::npos) << *wrong;
  }
}

// The gradient's scale and the moments are checked too, not only the weights.
TEST(AdamFormula, AWrongScaleOrMomentFailsIt) {
  const AdamUpdate unscaled = [](AdamConfig c, int step, DType type, const void* grad, float* master, float* m,
                                 float* v, void* param, std::size_t n) {
    c.grad_scale = 1.0f;  // m / sqrt(v) cancels it from the weights: the moments must show it
    adam_update(c, step, type, grad, master, m, v, param, n);
  };
  const auto wrong = adam_formula_mismatch(unscaled, AdamHyperparameters{});
  ASSERT_TRUE(wrong.has_value());
  EXPECT_NE(wrong->find("moment"), std::string::npos) << *wrong;
}

}  // namespace
}  // namespace distbench::numerics
