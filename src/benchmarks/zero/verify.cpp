#include "benchmarks/zero/verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace distbench::zero {
namespace {

constexpr std::size_t kBlock = std::size_t{1} << 16;  // elements per pass: small enough to stay in cache

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

}  // namespace

Reference reference_run(std::uint64_t begin, std::size_t count, int ranks, int steps, DType type,
                        const numerics::AdamConfig& adam) {
  Reference out{std::vector<float>(count), std::vector<float>(count), std::vector<float>(count),
                std::vector<float>(count)};
  numerics::AdamConfig config = adam;
  config.grad_scale = 1.0f / static_cast<float>(ranks);
  config.threads = 1;
  const std::size_t g = size_of(type);
  std::vector<float> m(kBlock), v(kBlock);
  std::vector<std::byte> grad(kBlock * g), param(kBlock * g);
  for (std::size_t at = 0; at < count; at += kBlock) {
    const std::size_t n = std::min(kBlock, count - at);
    float* master = out.master.data() + at;
    for (std::size_t k = 0; k < n; ++k) master[k] = initial_weight(begin + at + k);
    std::fill(m.begin(), m.end(), 0.0f);
    std::fill(v.begin(), v.end(), 0.0f);
    for (int step = 1; step <= steps; ++step) {
      for (std::size_t k = 0; k < n; ++k) {
        float sum = 0;
        for (int r = 0; r < ranks; ++r) sum += gradient_value(begin + at + k, r, step);
        store_value(type, grad.data(), k, sum);
      }
      numerics::adam_update(config, step, type, grad.data(), master, m.data(), v.data(),
                            type == DType::float32 ? nullptr : param.data(), n);
    }
    // fp32: the master weights are the parameters; else what the update wrote
    for (std::size_t k = 0; k < n; ++k) {
      out.params[at + k] = type == DType::float32 ? master[k] : load_value(type, param.data(), k);
      out.m[at + k] = m[k];
      out.v[at + k] = v[k];
    }
  }
  return out;
}

std::vector<float> reference_params(std::uint64_t begin, std::size_t count, int ranks, int steps, DType type,
                                    const numerics::AdamConfig& adam) {
  if (steps > 0) return reference_run(begin, count, ranks, steps, type, adam).params;
  std::vector<float> out(count);
  std::vector<std::byte> one(size_of(type));
  for (std::size_t k = 0; k < count; ++k) {
    store_value(type, one.data(), 0, initial_weight(begin + k));
    out[k] = load_value(type, one.data(), 0);
  }
  return out;
}

std::optional<Mismatch> first_mismatch(const std::string& what, const std::vector<std::uint64_t>& indices,
                                       const std::vector<float>& values, const std::vector<float>& expected) {
  std::optional<Mismatch> first;
  std::uint64_t count = 0;
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (same_bits(values[k], expected[k])) continue;
    ++count;
    if (!first || indices[k] < first->index) first = Mismatch{what, indices[k], values[k], expected[k], 0};
  }
  if (first) first->count = count;
  return first;
}

std::optional<Mismatch> check_step(const ZeroStep& step, int ranks, DType type, const numerics::AdamConfig& adam) {
  // Block by block, so that the check holds no more than a block beside the step.
  std::optional<Mismatch> master_first, param_first, m_first, v_first;
  const auto note = [](std::optional<Mismatch>& first, const std::optional<Mismatch>& block) {
    if (!block) return;
    if (!first) {
      first = block;
      return;
    }
    first->count += block->count;  // blocks come in global order: the first one found stays first
  };
  std::vector<std::uint64_t> indices;
  std::vector<float> master, params, m, v;
  for (std::size_t run = 0; run < step.owned_runs(); ++run) {
    const Range r = step.owned_run(run);
    for (std::size_t at = 0; at < r.size(); at += kBlock) {
      const std::size_t n = std::min(kBlock, r.size() - at);
      const Reference ref = reference_run(r.begin + at, n, ranks, step.steps_done(), type, adam);
      indices.resize(n);
      master.resize(n);
      params.resize(n);
      m.resize(n);
      v.resize(n);
      for (std::size_t k = 0; k < n; ++k) {
        indices[k] = r.begin + at + k;
        master[k] = step.master_at(run, at + k);
        params[k] = step.param_at(run, at + k);
        m[k] = step.m_at(run, at + k);
        v[k] = step.v_at(run, at + k);
      }
      note(master_first, first_mismatch("master weight", indices, master, ref.master));
      note(param_first, first_mismatch("parameter", indices, params, ref.params));
      note(m_first, first_mismatch("Adam first moment m", indices, m, ref.m));
      note(v_first, first_mismatch("Adam second moment v", indices, v, ref.v));
    }
  }
  if (master_first) return master_first;
  if (param_first) return param_first;
  if (m_first) return m_first;
  if (v_first) return v_first;
  if (!step.holds_full_params()) return std::nullopt;
  // Stages 0-2: every parameter the rank holds, so that all ranks hold the same.
  const std::uint64_t psi = step.parameters();
  for (std::uint64_t at = 0; at < psi; at += kBlock) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, psi - at));
    const Reference ref = reference_run(at, n, ranks, step.steps_done(), type, adam);
    indices.resize(n);
    params.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      indices[k] = at + k;
      params[k] = step.held_param(at + k);
    }
    note(param_first, first_mismatch("parameter", indices, params, ref.params));
  }
  return param_first;
}

std::optional<Mismatch> check_step(const ZeroStep& step, const StepLedger& ledger, int ranks, DType type,
                                   const numerics::AdamConfig& adam) {
  if (ledger.gather_mismatch()) return ledger.gather_mismatch();
  return check_step(step, ranks, type, adam);
}

SentCheck check_sent(const StepLedger& ledger, int steps) {
  const StepConfig& c = ledger.config();
  const std::size_t g = size_of(c.type);
  const auto segments = stage_segments(c.stage, c.layers, c.bucket, static_cast<std::size_t>(ledger.size()));
  const std::uint64_t per_step = bytes_sent_per_step(c.stage, segments, Precision{g, g, 0}, c.zero1);
  return {ledger.bytes_sent(), per_step * static_cast<std::uint64_t>(steps), steps};
}

std::string tensor_position(std::uint64_t index, const std::vector<std::size_t>& layers) {
  std::uint64_t begin = 0;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    if (index < begin + layers[l]) {
      return fmt::format("tensor {} (of {}), index {}", l, layers.size(), index - begin);
    }
    begin += layers[l];
  }
  return fmt::format("index {} (past the {} parameters)", index, begin);
}

}  // namespace distbench::zero
