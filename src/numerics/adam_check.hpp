// Adam checked against its formulas, sharing no code with the update it checks (numerics/adam.cpp): with a constant
// gradient g (times the config's grad_scale s: g' = s g) from zero moments, Adam's recurrences have a closed form,
//   m_t = (1 - beta1^t) g',   v_t = (1 - beta2^t) g'^2,
// so the bias-corrected moments are g' and g'^2 at every step t and each step moves the weight by the same
//   lr g' / (|g'| + eps),   w_t = w_0 - t lr g' / (|g'| + eps).
// A wrong bias correction (1 - beta^(t+1), none, the two swapped) changes the step's size at once: by 9% or more in
// the first four steps at the default betas, and 3.16x with none.
//
// Tolerance (float32, u = 2^-24; the expected values are computed in double from the float hyperparameters):
//   m_t, v_t: each step rounds 2 (m) or 4 (v) times, so after t steps the relative error is at most 4 t u (+ the
//     closed form's own double rounding); the check allows 8 t u.
//   the step: 1 - beta2^t is computed from a rounded pow; the absolute error u of beta2^t is a relative error of
//     u / (1 - beta2^t) <= u / (1 - beta2) in the correction, which reaches the step through a square root (half of
//     it) and a division; with the other 8 roundings of the step, |error| <= (1 / (1 - beta2) + 1 / (1 - beta1) + 8) u
//     of the step's size, and the subtraction from the weight rounds by at most u |w| more: after t steps
//     |w_t - expected| <= t ((1 / (1 - beta2) + 1 / (1 - beta1) + 8) u |step| + u max|w|), allowed twice over.
// A wrong correction is ~1e-1 of the step; the bound at the defaults is ~1e-4 of it.
#pragma once

#include "numerics/adam.hpp"

#include <functional>
#include <optional>
#include <string>

namespace distbench::numerics {

// An update with adam_update's contract.
using AdamUpdate = std::function<void(const AdamConfig& config, int step, DType type, const void* grad, float* master,
                                      float* m, float* v, void* param, std::size_t n)>;

// Runs `update` for 4 steps on a few elements of constant gradient (float32, the master weights as the parameters;
// and bfloat16 parameters beside fp32 master weights) with `config`'s hyperparameters (grad_scale 1/2, one thread),
// and compares m, v, the master weights and the parameters with the closed form after every step. Returns what
// differs, in one line, or nothing.
std::optional<std::string> adam_formula_mismatch(const AdamUpdate& update, const AdamHyperparameters& config);

}  // namespace distbench::numerics
