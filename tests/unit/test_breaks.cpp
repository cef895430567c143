// The causes named for the sizes a model refuses, and their grouping into ranges.
#include "model/breaks.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace distbench::model {
namespace {

PointFacts point(double bytes, double measured, double model, double latency_share = 0.1, double faults = 0,
                 bool refused = true) {
  return {2, bytes, measured, model, latency_share, faults, refused};
}

TEST(ModelBreaks, PageFaultsComeFirst) {
  const auto causes = break_causes({point(1 << 20, 2e-3, 1e-3, 0.1, 64)});
  EXPECT_EQ(causes[0].rfind("page faults (64 per operation", 0), 0u) << causes[0];
}

TEST(ModelBreaks, AFaultOrTwoPerOperationIsNotThePageFaultCause) {
  // 1 fault per 256 KiB operation touches 4 KiB of it: not what makes it twice as slow (a protocol switch did, on
  // the 2-host cluster); 16 faults per 1 MiB (1/16 of its pages) do count
  const auto few = break_causes({point(262144, 2e-3, 1e-3, 0.1, 1)});
  EXPECT_EQ(few[0].rfind("page faults", 0), std::string::npos) << few[0];
  const auto share = break_causes({point(1 << 20, 2e-3, 1e-3, 0.1, 16)});
  EXPECT_EQ(share[0].rfind("page faults (16 per operation", 0), 0u) << share[0];
}

TEST(ModelBreaks, ACliffIsAJumpFromAHeldSize) {
  // 32 KiB held at the model; 64 KiB takes 3x as long where the model grows 2x
  const auto causes = break_causes({point(32768, 10e-6, 10e-6, 0.1, 0, false), point(65536, 30e-6, 20e-6)});
  EXPECT_EQ(causes[0], "");
  EXPECT_EQ(causes[1].rfind("a cliff: 3.0x the time of 32 KiB where the model grows 2.0x", 0), 0u) << causes[1];
}

TEST(ModelBreaks, SizesAfterACliffBelongToIt) {
  const std::vector<PointFacts> points = {point(4096, 1e-6, 1e-6, 0.1, 0, false), point(8192, 4e-6, 2e-6),
                                          point(16384, 8e-6, 4e-6), point(32768, 12e-6, 8e-6)};
  const auto causes = break_causes(points);
  EXPECT_EQ(causes[1].rfind("a cliff", 0), 0u) << causes[1];
  EXPECT_EQ(causes[2], "after the cliff at 8 KiB: still slower than the model");
  EXPECT_EQ(causes[3], "after the cliff at 8 KiB: still slower than the model");
  const auto lines = break_ranges(points, causes);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "p=2, 16 KiB .. 32 KiB: after the cliff at 8 KiB");
}

TEST(ModelBreaks, LatencyBoundFasterAndSlower) {
  const auto causes = break_causes({point(8, 2e-6, 1e-6, 0.9), point(1 << 20, 1e-3, 2e-3), point(1 << 22, 9e-3, 2e-3)});
  EXPECT_EQ(causes[0].rfind("latency-bound", 0), 0u);
  EXPECT_EQ(causes[1].rfind("faster than the model", 0), 0u);
  // not a cliff: the size before was refused too
  EXPECT_EQ(causes[2].rfind("slower than the model", 0), 0u);
}

TEST(ModelBreaks, RangesJoinConsecutiveSizesOfOneCause) {
  const std::vector<PointFacts> points = {point(8, 2e-6, 1e-6, 0.9), point(16, 2e-6, 1e-6, 0.9),
                                          point(32, 1e-6, 1e-6, 0.9, 0, false), point(64, 3e-6, 1e-6, 0.9)};
  const auto lines = break_ranges(points, break_causes(points));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "p=2, 8 B .. 16 B: latency-bound");
  EXPECT_EQ(lines[1].rfind("p=2, 64 B: a cliff", 0), 0u) << lines[1];
}

}  // namespace
}  // namespace distbench::model
