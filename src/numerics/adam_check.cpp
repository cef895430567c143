#include "numerics/adam_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace distbench::numerics {
namespace {

constexpr int kFormulaSteps = 4;
constexpr double kUnit = 0x1p-24;                                           // float32's unit roundoff
constexpr std::array<float, 4> kGradients = {1.0f, -3.0f, 0.375f, -40.0f};  // exact in bfloat16
constexpr std::array<float, 4> kWeights = {0.5f, -1.25f, 2.0f, 0.75f};

// bfloat16 bits of a value it holds exactly, and back (the upper half of a float's bits).
std::uint16_t exact_bfloat16(float x) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  return static_cast<std::uint16_t>(bits >> 16);
}
float from_bfloat16_bits(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float x = 0;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

struct ClosedForm {
  double m = 0, v = 0, w = 0, step = 0;
};

// The closed form after step t for gradient g (already scaled) and initial weight w0.
ClosedForm closed_form(const AdamHyperparameters& c, int t, double g, double w0) {
  const double b1 = c.beta1, b2 = c.beta2;
  ClosedForm e;
  e.m = (1.0 - std::pow(b1, t)) * g;
  e.v = (1.0 - std::pow(b2, t)) * g * g;
  e.step = static_cast<double>(c.lr) * g / (std::abs(g) + static_cast<double>(c.eps));
  e.w = w0 - t * e.step;
  return e;
}

std::optional<std::string> beyond_bound(const char* what, const char* type, int t, std::size_t i, double got,
                                        double expected, double bound) {
  if (std::abs(got - expected) <= bound) return std::nullopt;  // NaN fails too
  return fmt::format(
      "Adam ({}) after step {}: the {} of element {} is {:.9g}, its closed form {:.9g} (bound {:.3g}): the update "
      "does not follow Adam's formulas",
      type, t, what, i, got, expected, bound);
}

// One run of `update` over kFormulaSteps steps; `bf16`: bfloat16 gradients and parameters beside fp32 master weights.
std::optional<std::string> run_formula_steps(const AdamUpdate& update, const AdamHyperparameters& hyper, bool bf16) {
  AdamConfig config;
  static_cast<AdamHyperparameters&>(config) = hyper;
  config.grad_scale = 0.5f;
  config.threads = 1;
  const std::size_t n = kGradients.size();
  std::vector<float> master(kWeights.begin(), kWeights.end()), m(n, 0.0f), v(n, 0.0f), grad32(n);
  std::vector<std::uint16_t> grad16(n), param16(n);
  for (std::size_t i = 0; i < n; ++i) {
    grad32[i] = kGradients[i];
    grad16[i] = exact_bfloat16(kGradients[i]);
  }
  const char* type = bf16 ? "bfloat16 parameters" : "float32";
  const double c1 = 1.0 / (1.0 - hyper.beta1), c2 = 1.0 / (1.0 - hyper.beta2);
  for (int t = 1; t <= kFormulaSteps; ++t) {
    if (bf16) {
      update(config, t, DType::bfloat16, grad16.data(), master.data(), m.data(), v.data(), param16.data(), n);
    } else {
      update(config, t, DType::float32, grad32.data(), master.data(), m.data(), v.data(), nullptr, n);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const double g = 0.5 * kGradients[i];
      const ClosedForm e = closed_form(hyper, t, g, kWeights[i]);
      const double moments = 8.0 * t * kUnit;
      const double w_max = std::max(std::abs(e.w), static_cast<double>(std::abs(kWeights[i])));
      const double w_bound = 2.0 * t * ((c1 + c2 + 8.0) * kUnit * std::abs(e.step) + kUnit * w_max);
      for (auto wrong : {beyond_bound("first moment m", type, t, i, m[i], e.m, moments * std::abs(e.m)),
                         beyond_bound("second moment v", type, t, i, v[i], e.v, moments * std::abs(e.v)),
                         beyond_bound("master weight", type, t, i, master[i], e.w, w_bound)}) {
        if (wrong) return wrong;
      }
      // bfloat16 rounds to 8 significant bits: within 2^-8 of the master weight.
      if (bf16) {
        const double p = from_bfloat16_bits(param16[i]);
        if (auto wrong = beyond_bound("parameter", type, t, i, p, master[i], 0x1p-8 * std::abs(master[i])))
          return wrong;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> adam_formula_mismatch(const AdamUpdate& update, const AdamHyperparameters& config) {
  if (auto wrong = run_formula_steps(update, config, false)) return wrong;
  return run_formula_steps(update, config, true);
}

}  // namespace distbench::numerics
