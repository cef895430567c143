// ZeRO's formulas (benchmarks/zero/formulas), the paper's (Rajbhandari et al. 2020): memory per stage, bytes sent.
#include "benchmarks/zero/formulas.hpp"
#include "benchmarks/zero/partition.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace distbench::zero {
namespace {

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

}  // namespace
}  // namespace distbench::zero
