// zero --check: after k steps with exact gradients, every element a rank updates must hold the master weight,
// parameter and Adam moments (m, v) of a single-rank run of the same global steps (the gradient of each element summed
// over the ranks, which is exact, then the same update), bit for bit; stages 0-2 also compare every parameter the rank
// holds, so that the parameters agree across ranks. A stage that matches this reference matches stage 0, which matches
// it too. Stage 3's gathered layers and every stage's bytes sent are judged from outside the step, by the communicator
// it ran through (step_ledger.hpp).
#pragma once

#include "benchmarks/zero/step.hpp"
#include "benchmarks/zero/step_ledger.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace distbench::zero {

// The reference master weights and parameters (as floats) of elements [begin, begin + count) after `steps` steps of
// `ranks` ranks.
struct Reference {
  std::vector<float> master, params, m, v;  // m, v: Adam's moments, which a wrong gradient scale changes even where
                                            // m / sqrt(v) cancels it out of the weights
};
Reference reference_run(std::uint64_t begin, std::size_t count, int ranks, int steps, DType type,
                        const numerics::AdamConfig& adam);

// The reference parameters (as floats) of elements [begin, begin + count) after `steps` steps of `ranks` ranks; after
// none, the initial weights in the parameters' type.
std::vector<float> reference_params(std::uint64_t begin, std::size_t count, int ranks, int steps, DType type,
                                    const numerics::AdamConfig& adam);

// The first element (lowest global index) whose value differs from the reference, and how many differ (Mismatch:
// step.hpp).
// `values[k]` belongs to global element `indices[k]`; `expected[k]` is its reference value. Bitwise comparison.
std::optional<Mismatch> first_mismatch(const std::string& what, const std::vector<std::uint64_t>& indices,
                                       const std::vector<float>& values, const std::vector<float>& expected);

// This rank's check of `step` (which has run `step.steps_done()` steps with exact gradients): the master weights, the
// parameters, m and v.
std::optional<Mismatch> check_step(const ZeroStep& step, int ranks, DType type, const numerics::AdamConfig& adam);
// The same for a step that ran through `ledger`: stage 3's gathered layers first (what the forward and backward
// consumed, as the ledger saw them arrive), then the above.
std::optional<Mismatch> check_step(const ZeroStep& step, const StepLedger& ledger, int ranks, DType type,
                                   const numerics::AdamConfig& adam);

// The bytes this rank sent through `ledger` over `steps` steps, and what formulas.hpp's bytes_sent_per_step says
// (the paper's 2Ψ for stages 0-2, 3Ψ for stage 3, with the tool's buckets and padding) for as many steps.
struct SentCheck {
  std::uint64_t sent = 0, formula = 0;
  int steps = 0;
  bool ok() const { return sent == formula; }
};
SentCheck check_sent(const StepLedger& ledger, int steps);

// "tensor 7 (of 48), index 123": where a global index falls among the layers.
std::string tensor_position(std::uint64_t index, const std::vector<std::size_t>& layers);

}  // namespace distbench::zero
