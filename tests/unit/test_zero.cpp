// ZeRO's partition arithmetic and the paper's formulas (Rajbhandari et al. 2020).
#include "benchmarks/zero/formulas.hpp"
#include "benchmarks/zero/partition.hpp"
#include "benchmarks/zero/verify.hpp"
#include "benchmarks/zero/zero_record.hpp"
#include "core/device/half.hpp"
#include "core/error.hpp"
#include "numerics/adam.hpp"
#include "tests/support/layout_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace distbench::zero {
namespace {

TEST(Layers, EvenSplitWithTheRemainderFirst) {
  EXPECT_EQ(layer_sizes(10, 3), (std::vector<std::size_t>{4, 3, 3}));
  EXPECT_EQ(layer_sizes(12, 4), (std::vector<std::size_t>{3, 3, 3, 3}));
  EXPECT_EQ(layer_sizes(5, 5), (std::vector<std::size_t>{1, 1, 1, 1, 1}));
}

TEST(Layers, BadShapesAreUsageErrors) {
  for (auto [psi, layers] : {std::pair<std::size_t, std::size_t>{0, 1}, {4, 0}, {3, 4}}) {
    try {
      layer_sizes(psi, layers);
      ADD_FAILURE() << psi << " in " << layers;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
    }
  }
}

TEST(Partition, ShardsCoverEveryElementOnceWithPaddingAtTheEnd) {
  for (std::size_t n : {1U, 2U, 3U, 4U, 7U}) {
    for (std::size_t elements : {1U, 5U, 12U, 13U, 100U}) {
      const Partition part = partition(elements, n);
      EXPECT_EQ(part.shard, (elements + n - 1) / n);
      std::size_t covered = 0, next = 0;
      for (std::size_t r = 0; r < n; ++r) {
        const Range own = part.owned(r);
        EXPECT_EQ(own.begin, std::min(next, elements)) << elements << "/" << n;
        EXPECT_LE(own.size(), part.shard);
        covered += own.size();
        next = own.end;
      }
      EXPECT_EQ(covered, elements);
      EXPECT_EQ(part.padding(), part.shard * n - elements);
      EXPECT_LT(part.padding(), n);
    }
  }
  // 13 over 4: shards of 4, the last rank owns 1 element and 3 of padding
  const Partition p = partition(13, 4);
  EXPECT_EQ(p.owned(3).begin, 12U);
  EXPECT_EQ(p.owned(3).size(), 1U);
  EXPECT_EQ(p.padding(), 3U);
  // more ranks than elements: the last ranks own nothing
  EXPECT_EQ(partition(2, 4).owned(3).size(), 0U);
}

TEST(Formulas, ThePapersWorkedExample) {
  // "ZeRO" section 5.1 / Figure 1: Ψ = 7.5B, N_d = 64, K = 12 (mixed-precision Adam): 120 GB for the baseline,
  // 31.4 GB with P_os, 16.6 GB with P_os+g, 1.9 GB with P_os+g+p.
  const std::vector<std::size_t> one_layer{7'500'000'000};
  const Precision mixed = precision_of("bf16");
  auto gb = [&](Stage s) {
    return static_cast<double>(model_state_bytes(s, stage_segments(s, one_layer, 0, 64), mixed).total()) / 1e9;
  };
  EXPECT_DOUBLE_EQ(gb(Stage::s0), 120.0);
  EXPECT_NEAR(gb(Stage::s1), 31.4, 0.05);
  EXPECT_NEAR(gb(Stage::s2), 16.6, 0.05);
  EXPECT_NEAR(gb(Stage::s3), 1.9, 0.05);
}

TEST(Formulas, MemoryTermsPerStage) {
  const std::vector<std::size_t> layers{6, 6};  // Ψ = 12
  const Precision p = precision_of("fp16");
  auto state = [&](Stage s, std::size_t bucket = 0) {
    return model_state_bytes(s, stage_segments(s, layers, bucket, 4), p);
  };
  // N = 4, one bucket: shards of 3
  EXPECT_EQ(state(Stage::s0).total(), 12U * 16);
  EXPECT_EQ(state(Stage::s1).optimizer, 3U * 12);
  EXPECT_EQ(state(Stage::s1).grads, 12U * 2);
  EXPECT_EQ(state(Stage::s2).grads, 3U * 2);
  EXPECT_EQ(step_buffer_bytes(Stage::s2, stage_segments(Stage::s2, layers, 0, 4), p), 12U * 2);
  // buckets of 5: 5, 5, 2 padded to 8, 8, 4 (shards 2, 2, 1): 20 parameters held, 5 optimizer entries
  EXPECT_EQ(state(Stage::s2, 5).params, 20U * 2);
  EXPECT_EQ(state(Stage::s2, 5).optimizer, 5U * 12);
  EXPECT_EQ(step_buffer_bytes(Stage::s2, stage_segments(Stage::s2, layers, 5, 4), p), 8U * 2);
  // stage 3: each layer of 6 in shards of 2 (two layers: 4 elements); one layer of 6 padded to 8 gathered, with its
  // gradients
  const Memory m3 = state(Stage::s3);
  EXPECT_EQ(m3.params, 4U * 2);
  EXPECT_EQ(m3.grads, 4U * 2);
  EXPECT_EQ(m3.optimizer, 4U * 12);
  EXPECT_EQ(step_buffer_bytes(Stage::s3, stage_segments(Stage::s3, layers, 0, 4), p), 8U * (2 + 2));
  const Precision f = precision_of("fp32");
  EXPECT_EQ(f.param, 4U);
  EXPECT_EQ(f.optimizer, 8U);
  EXPECT_THROW(precision_of("fp8"), Error);
}

TEST(Formulas, BytesSentPerStep) {
  // Ψ = 12 in one layer, N = 4, 2-byte grads and params: a = 3/4, aΨ = 9 elements.
  const std::vector<std::size_t> layers{12};
  const Precision p = precision_of("bf16");
  auto sent = [&](Stage s, const std::vector<std::size_t>& l, std::size_t n, Zero1Reduce z = Zero1Reduce::allreduce) {
    return bytes_sent_per_step(s, stage_segments(s, l, 0, n), p, z);
  };
  EXPECT_EQ(sent(Stage::s0, layers, 4), 2U * 9 * 2);                               // 2Ψ
  EXPECT_EQ(sent(Stage::s1, layers, 4), (2U * 9 + 9) * 2);                         // 3Ψ with allreduce
  EXPECT_EQ(sent(Stage::s1, layers, 4, Zero1Reduce::reduce_scatter), 2U * 9 * 2);  // 2Ψ
  EXPECT_EQ(sent(Stage::s2, layers, 4), 2U * 9 * 2);                               // 2Ψ
  EXPECT_EQ(sent(Stage::s3, layers, 4), 3U * 9 * 2);                               // 3Ψ
  // one rank sends nothing
  EXPECT_EQ(sent(Stage::s3, layers, 1), 0U);
  // Ψ = 13 over 4 is padded to 16: a Ψ = 12 elements
  EXPECT_EQ(sent(Stage::s2, {13}, 4), 2U * 12 * 2);
  // in buckets of 5 (5, 5, 3, each padded to 8, 8, 4): a Ψ = 6 + 6 + 3 elements
  EXPECT_EQ(bytes_sent_per_step(Stage::s2, stage_segments(Stage::s2, {13}, 5, 4), p), 2U * 15 * 2);
}

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

TEST(Buckets, CutTheFlatParametersAndShardEachOnItsOwn) {
  const auto b = bucket_segments(13, 5, 4);
  ASSERT_EQ(b.size(), 3U);
  EXPECT_EQ(b[2].begin, 10U);
  EXPECT_EQ(b[2].part.elements, 3U);
  EXPECT_EQ(padded_elements(b), 8U + 8U + 4U);
  EXPECT_EQ(shard_elements(b), 2U + 2U + 1U);
  EXPECT_EQ(largest_padded(b), 8U);
  EXPECT_EQ(bucket_segments(13, 0, 4).size(), 1U);   // 0: one bucket
  EXPECT_EQ(bucket_segments(13, 99, 4).size(), 1U);  // larger than Ψ: one bucket
  const auto l = layer_segments({4, 3, 3}, 2);
  EXPECT_EQ(l[1].begin, 4U);
  EXPECT_EQ(l[2].part.shard, 2U);
}

TEST(Check, FirstMismatchIsTheLowestIndexAndCountsAll) {
  const std::vector<std::uint64_t> idx{7, 3, 9, 4};
  const std::vector<float> want{1.0f, 2.0f, 3.0f, 4.0f};
  EXPECT_FALSE(first_mismatch("parameter", idx, want, want).has_value());
  std::vector<float> got = want;
  got[2] = 3.5f;
  got[3] = std::nextafter(4.0f, 5.0f);  // one ulp is a mismatch: the check is bitwise
  const auto m = first_mismatch("parameter", idx, got, want);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->index, 4U);
  EXPECT_EQ(m->count, 2U);
  EXPECT_EQ(m->expected, 4.0f);
  // -0 and +0 differ in bits
  EXPECT_TRUE(first_mismatch("parameter", {0}, {-0.0f}, {0.0f}).has_value());
}

TEST(Check, TensorPositionNamesTheLayer) {
  EXPECT_EQ(tensor_position(0, {4, 3, 3}), "tensor 0 (of 3), index 0");
  EXPECT_EQ(tensor_position(5, {4, 3, 3}), "tensor 1 (of 3), index 1");
  EXPECT_EQ(tensor_position(9, {4, 3, 3}), "tensor 2 (of 3), index 2");
}

TEST(Check, ReferenceRunMovesEveryWeightAgainstItsSummedGradient) {
  // One step of Adam moves each weight by about lr against the sign of its gradient (zero gradient: no move).
  const Reference r = reference_run(0, 50, 2, 1, DType::float32, AdamConfig{});
  for (std::size_t i = 0; i < 50; ++i) {
    const float g = gradient_value(i, 0, 1) + gradient_value(i, 1, 1);
    const float w0 = initial_weight(i);
    if (g == 0) {
      EXPECT_EQ(r.master[i], w0);
    } else {
      EXPECT_NEAR(r.master[i], w0 - (g > 0 ? 1e-3f : -1e-3f), 1e-5f) << i;
    }
    EXPECT_EQ(r.params[i], r.master[i]);  // fp32: the parameters are the master weights
  }
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

// Each metric is declared once (metrics::all): the layout lists them all, the table shows every one with a title in
// the layout's order (with both forms of stage 1, beside the zero1_reduce parameter), and the builder sets exactly
// these.
TEST(ZeroRecord, TheTableShowsTheDeclaredMetricsAndTheBuilderSetsThem) {
  const std::vector<std::string> shown = {
      "step_ms", "reduce_ms", "update_ms", "gather_ms", "layer_gather_ms", "predicted_ms",
      "step_vs_predicted", "update_vs_copy", "sent_mb", "net_sent_mb", "state_mb", "buffer_mb", "library_mb",
      "peak_rss_mb", "device_mb", "wrong"};
  EXPECT_EQ(test_support::shown_metrics(zero_record_layout(), zero_table()), shown);
  EXPECT_EQ(test_support::shown_metrics(zero_record_layout(), zero_table(true)), shown);
  EXPECT_EQ(zero_record_layout().metrics.size(), std::size(metrics::all));
  StageResult s;
  s.stage = Stage::s3;
  s.backend = "mpi";
  s.layers = 2;
  s.ranks = 2;
  s.phase_names = {"fwd_gather", "bwd_gather", "reduce", "update"};
  s.phases.assign(4, reduce_phase("phase", {{1e-4, 2e-4}, {1e-4, 2e-4}}, RankAverage::avg));
  s.step = reduce_phase("step", {{1e-3, 2e-3}, {1e-3, 2e-3}}, RankAverage::avg);
  s.predicted_s = 1e-3;
  s.hosts = {"a", "a"};
  EXPECT_EQ(test_support::metric_keys(zero_record(s)), test_support::metric_keys(zero_record_layout()));
}

}  // namespace
}  // namespace distbench::zero
