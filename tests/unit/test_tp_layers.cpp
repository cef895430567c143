// The parallel layers (benchmarks/tp/tp_layers): what divides, and the step a layer's row shows.
#include "benchmarks/tp/tp_layers.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace distbench::tp {
namespace {

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

}  // namespace
}  // namespace distbench::tp
