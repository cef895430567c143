// The peers' own counts of timed and untimed calls per size (--timing osu|imb), from their settings: OSU 7.x's
// COLL_LOOP_SMALL/LARGE and COLL_SKIP_SMALL/LARGE around LARGE_MESSAGE_SIZE, IMB's MSGSPERSAMPLE, OVERALL_VOL,
// WARMUP_PERCENT and MIN_WARMUP_ITERS.
#include "benchmarks/collective/peer_counts.hpp"

#include <gtest/gtest.h>

namespace distbench::collective {
namespace {

TEST(PeerCounts, OsuTimesAThousandCallsUpTo8KiBAndAHundredAbove) {
  EXPECT_EQ(osu_counts(4).iterations, 1000);
  EXPECT_EQ(osu_counts(4).warmup, 100);
  EXPECT_EQ(osu_counts(8192).iterations, 1000);
  EXPECT_EQ(osu_counts(8193).iterations, 100);
  EXPECT_EQ(osu_counts(8193).warmup, 10);
  EXPECT_EQ(osu_counts(1 << 20).iterations, 100);
}

TEST(PeerCounts, ImbKeepsFortyMiBPerSizeAndWarmsUpATenth) {
  EXPECT_EQ(imb_counts(0).iterations, 1000);
  EXPECT_EQ(imb_counts(0).warmup, 100);
  EXPECT_EQ(imb_counts(4096).iterations, 1000);  // 40 MiB / 4 KiB = 10240: capped at 1000
  EXPECT_EQ(imb_counts(65536).iterations, 640);  // 40 MiB / 64 KiB
  EXPECT_EQ(imb_counts(65536).warmup, 64);
  EXPECT_EQ(imb_counts(1 << 20).iterations, 40);
  EXPECT_EQ(imb_counts(1 << 20).warmup, 10);  // a tenth is 4: at least min(10, 40)
  EXPECT_EQ(imb_counts(16 << 20).iterations, 2);
  EXPECT_EQ(imb_counts(16 << 20).warmup, 2);      // min(10, 2)
  EXPECT_EQ(imb_counts(64 << 20).iterations, 1);  // at least one
}

TEST(PeerCounts, GivenCountsReplaceThePeers) {
  SweepPlan plan;
  EXPECT_EQ(with_given_counts(plan, imb_counts(1 << 20)).iterations, 40);
  plan.iters_given = 7;
  plan.warmup_given = 0;
  const PeerCounts c = with_given_counts(plan, osu_counts(8));
  EXPECT_EQ(c.iterations, 7);
  EXPECT_EQ(c.warmup, 0);
}

}  // namespace
}  // namespace distbench::collective
