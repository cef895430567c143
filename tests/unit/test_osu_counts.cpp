// osu_latency's round-trip counts (benchmarks/latency/osu_counts): they change above 8 KiB.
#include "benchmarks/latency/osu_counts.hpp"

#include <gtest/gtest.h>

namespace distbench::latency {
namespace {

TEST(Latency, OsuLatencysRoundTripsChangeAbove8KiB) {
  EXPECT_EQ(osu_latency_round_trips(1).warmup, 100);
  EXPECT_EQ(osu_latency_round_trips(8192).timed, 10000u);  // 8 KiB itself is small in OSU (size > 8192 is large)
  EXPECT_EQ(osu_latency_round_trips(8193).warmup, 10);
  EXPECT_EQ(osu_latency_round_trips(4 << 20).timed, 1000u);
}

}  // namespace
}  // namespace distbench::latency
