// ZeRO's partition arithmetic and the paper's formulas (Rajbhandari et al. 2020).
#include "benchmarks/zero/formulas.hpp"
#include "benchmarks/zero/partition.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <numeric>

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
  auto gb = [&](Stage s) { return static_cast<double>(model_state_bytes(s, one_layer, 64, mixed, 0).total()) / 1e9; };
  EXPECT_DOUBLE_EQ(gb(Stage::s0), 120.0);
  EXPECT_NEAR(gb(Stage::s1), 31.4, 0.05);
  EXPECT_NEAR(gb(Stage::s2), 16.6, 0.05);
  EXPECT_NEAR(gb(Stage::s3), 1.9, 0.05);
}

TEST(Formulas, MemoryTermsPerStage) {
  const std::vector<std::size_t> layers{6, 6};  // Ψ = 12
  const Precision p = precision_of("fp16");
  // N = 4: shards of 3
  EXPECT_EQ(model_state_bytes(Stage::s1, layers, 4, p).optimizer, 3U * 12);
  EXPECT_EQ(model_state_bytes(Stage::s1, layers, 4, p).grads, 12U * 2);
  EXPECT_EQ(model_state_bytes(Stage::s2, layers, 4, p).grads, 3U * 2);
  // stage 3: each layer of 6 in shards of 2 (two layers: 4 elements) + one live layer of 6
  const Memory m3 = model_state_bytes(Stage::s3, layers, 4, p, 1);
  EXPECT_EQ(m3.params, (4U + 6U) * 2);
  EXPECT_EQ(m3.grads, 4U * 2);
  EXPECT_EQ(m3.optimizer, 4U * 12);
  const Precision f = precision_of("fp32");
  EXPECT_EQ(f.param, 4U);
  EXPECT_EQ(f.optimizer, 8U);
  EXPECT_THROW(precision_of("fp8"), Error);
}

TEST(Formulas, BytesSentPerStep) {
  // Ψ = 12 in one layer, N = 4, 2-byte grads and params: a = 3/4, aΨ = 9 elements.
  const std::vector<std::size_t> layers{12};
  const Precision p = precision_of("bf16");
  EXPECT_EQ(bytes_sent_per_step(Stage::s0, layers, 4, p), 2U * 9 * 2);              // 2Ψ
  EXPECT_EQ(bytes_sent_per_step(Stage::s1, layers, 4, p), (2U * 9 + 9) * 2);        // 3Ψ with allreduce
  EXPECT_EQ(bytes_sent_per_step(Stage::s1, layers, 4, p, Zero1Reduce::reduce_scatter), 2U * 9 * 2);  // 2Ψ
  EXPECT_EQ(bytes_sent_per_step(Stage::s2, layers, 4, p), 2U * 9 * 2);              // 2Ψ
  EXPECT_EQ(bytes_sent_per_step(Stage::s3, layers, 4, p), 3U * 9 * 2);              // 3Ψ
  // one rank sends nothing
  EXPECT_EQ(bytes_sent_per_step(Stage::s3, layers, 1, p), 0U);
  // Ψ = 13 over 4 is padded to 16: a Ψ = 12 elements
  EXPECT_EQ(bytes_sent_per_step(Stage::s2, {13}, 4, p), 2U * 12 * 2);
}

}  // namespace
}  // namespace distbench::zero
