// Shard arithmetic of the tensor-parallel benchmark (benchmarks/tp): shapes, dims, blocks, which primitive each
// operation's pass runs, the bus factors; and the operations' input values (exact small integers).
#include "benchmarks/tp/shard.hpp"
#include "benchmarks/tp/tp_layers.hpp"
#include "benchmarks/tp/tp_ops.hpp"
#include "benchmarks/tp/tp_record.hpp"
#include "core/error.hpp"
#include "tests/support/layout_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace distbench::tp {
namespace {

TEST(TpShard, ParsesShapesAndRefusesTheRest) {
  EXPECT_EQ(parse_shape("4096x1024", "--shape"), (Shape{4096, 1024}));
  EXPECT_EQ(parse_shape("3X5", "--shape"), (Shape{3, 5}));
  EXPECT_EQ(shape_text({3, 5}), "3x5");
  for (const char* bad : {"", "4096", "x4", "4x", "0x4", "4x0", "-1x4", "4x4x4", "4 x4", "ax4"}) {
    EXPECT_THROW(parse_shape(bad, "--shape"), Error) << bad;
  }
}

TEST(TpShard, DimsAreRowsOrColumns) {
  EXPECT_EQ(normalize_dim(0), 0);
  EXPECT_EQ(normalize_dim(1), 1);
  EXPECT_EQ(normalize_dim(-1), 1);
  EXPECT_THROW(normalize_dim(2), Error);
  EXPECT_THROW(normalize_dim(-2), Error);
}

TEST(TpShard, BlocksTileTheTensorOnce) {
  const Shape full{6, 8};
  for (int dim : {0, 1}) {
    for (int parts : {1, 2}) {
      const ShardLayout l = shard_layout(full, dim, parts);
      EXPECT_EQ(l.shard.elements() * static_cast<std::size_t>(parts), full.elements());
      std::set<std::size_t> seen;
      for (int g = 0; g < parts; ++g) {
        for (std::size_t r = 0; r < l.shard.rows; ++r) {
          for (std::size_t c = 0; c < l.shard.cols; ++c) seen.insert(l.block_offset(g) + r * full.cols + c);
        }
      }
      EXPECT_EQ(seen.size(), full.elements()) << "dim " << dim << ", parts " << parts;
    }
  }
  EXPECT_EQ(shard_layout(full, 1, 2).block_offset(1), 4U);   // the right half's first column
  EXPECT_EQ(shard_layout(full, 0, 2).block_offset(1), 24U);  // the lower half's first row
  EXPECT_THROW(shard_layout(full, 0, 4), Error);             // 6 rows over 4
  EXPECT_THROW(shard_layout(full, 1, 3), Error);             // 8 columns over 3
  EXPECT_NO_THROW(shard_layout(full, 0, 3));
}

TEST(TpOps, EachPassRunsTorchShardsPrimitive) {
  EXPECT_EQ(primitive(Op::scatter, Pass::forward), Primitive::slice);
  EXPECT_EQ(primitive(Op::scatter, Pass::backward), Primitive::allgather);
  EXPECT_EQ(primitive(Op::gather, Pass::forward), Primitive::allgather);
  EXPECT_EQ(primitive(Op::gather, Pass::backward), Primitive::slice);
  EXPECT_EQ(primitive(Op::reduce, Pass::forward), Primitive::allreduce);
  EXPECT_EQ(primitive(Op::reduce, Pass::backward), Primitive::identity);
  EXPECT_EQ(primitive(Op::copy, Pass::forward), Primitive::identity);
  EXPECT_EQ(primitive(Op::copy, Pass::backward), Primitive::allreduce);
  EXPECT_EQ(parse_op("copy"), Op::copy);
  EXPECT_FALSE(parse_op("split").has_value());
  // busbw comes from the collective's table entry: allgather (G-1)/G, allreduce 2(G-1)/G (nccl-tests' definitions)
  EXPECT_EQ(collective_of(Primitive::allgather), Collective::allgather);
  EXPECT_EQ(collective_of(Primitive::allreduce), Collective::allreduce);
  EXPECT_FALSE(collective_of(Primitive::slice).has_value());
  EXPECT_FALSE(collective_of(Primitive::identity).has_value());
}

TEST(TpOps, InputsAreSmallIntegersSoSumsAreExactInEveryType) {
  for (std::size_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(full_value(i), std::round(full_value(i)));
    EXPECT_LE(std::abs(full_value(i)), 5.0f);
    for (int g = 0; g < 8; ++g) EXPECT_LE(std::abs(summand(i, g)), 3.0f);
  }
}

TEST(TpLayers, SplitFeaturesMustDivide) {
  EXPECT_NO_THROW(check_divisible(LayerKind::column, {6, 8, 2}, 4));   // column splits out (8)
  EXPECT_THROW(check_divisible(LayerKind::row, {6, 8, 2}, 4), Error);  // row splits in (6)
  EXPECT_THROW(check_divisible(LayerKind::mlp, {8, 6, 2}, 4), Error);  // the MLP's hidden width (6)
  EXPECT_THROW(check_divisible(LayerKind::column, {6, 8, 0}, 1), Error);
  EXPECT_EQ(parse_layer("row"), LayerKind::row);
  EXPECT_FALSE(parse_layer("conv").has_value());
}

// The parts shown with a step come from that step: a median of each column on its own (forward 5, backward 5 below,
// the step's median 8) would show parts that add up to more than the step.
TEST(TpLayerTimes, TheShownStepAndItsPartsComeFromTheSameSample) {
  // two ranks, four samples; the slowest rank per sample: 1, 0, 1, 0 with steps 9, 7, 8, 10
  const std::vector<std::vector<double>> steps = {{6, 7, 5, 10}, {9, 6, 8, 4}};
  const std::vector<std::vector<double>> forwards = {{1, 2, 5, 6}, {5, 5, 4, 1}};
  const std::vector<std::vector<double>> backwards = {{1, 5, 9, 3}, {3, 9, 3, 2}};
  const std::vector<std::vector<double>> comms = {{1, 0.5, 1, 2}, {2, 3, 1.5, 1}};
  const ShownStep shown = median_step(steps, forwards, backwards, comms);
  EXPECT_EQ(shown.step, 8);  // the lower middle of 7, 8, 9, 10: sample 2, rank 1
  EXPECT_EQ(shown.parts.forward, 4);
  EXPECT_EQ(shown.parts.backward, 3);
  EXPECT_EQ(shown.parts.comm, 1.5);
  EXPECT_LE(shown.parts.forward + shown.parts.backward, shown.step);
  EXPECT_EQ(median_step({}, {}, {}, {}).step, 0);  // nothing measured
}

using test_support::shown_metrics;

TEST(TpRecord, TheTablesShowTheRecordsMetrics) {
  EXPECT_EQ(shown_metrics(ops_layout(), ops_table()),
            (std::vector<std::string>{"time_us", "algbw_gbps", "busbw_gbps", "wrong"}));
  EXPECT_EQ(shown_metrics(layers_layout(), layers_table()),  // every one but max_over_bound (in the reports only)
            (std::vector<std::string>{"forward_ms", "backward_ms", "step_ms", "comm_ms", "comm_share", "tflops",
                                      "max_rel_diff", "wrong"}));
  EXPECT_EQ(layers_layout().metrics.size(), 9u);
}

}  // namespace
}  // namespace distbench::tp
