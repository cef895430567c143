// The cache-line ping between two CPUs: a time when both sides ping, a bounded wait when one side is missing.
#include "core/sys/cache_line_ping.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace distbench {
namespace {

using Clock = std::chrono::steady_clock;

TEST(CacheLinePing, BothSidesGiveAOneWayTime) {
  PingLine line;
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  bool followed = false;
  std::thread follower([&] { followed = follow_pings(line, 0, 1000, deadline); });
  const auto ns = lead_pings(line, 0, 1000, deadline);
  follower.join();
  EXPECT_TRUE(followed);
  ASSERT_TRUE(ns.has_value());
  EXPECT_GT(*ns, 0.0);
  EXPECT_LT(*ns, 1e8);  // under 0.1 s one way, even on a loaded machine
  // a second reading on the same line starts above the first one's values
  std::thread again([&] { followed = follow_pings(line, 2000, 100, deadline); });
  EXPECT_TRUE(lead_pings(line, 2000, 100, deadline).has_value());
  again.join();
  EXPECT_TRUE(followed);
}

TEST(CacheLinePing, AMissingSideEndsTheWaitAtTheDeadline) {
  PingLine line;
  const auto began = Clock::now();
  EXPECT_FALSE(lead_pings(line, 0, 100, began + std::chrono::milliseconds(50)).has_value());
  EXPECT_FALSE(follow_pings(line, 1000, 100, Clock::now() + std::chrono::milliseconds(50)));
  EXPECT_LT(Clock::now() - began, std::chrono::seconds(20));                                 // bounded: never a hang
  EXPECT_FALSE(lead_pings(line, 0, 1, Clock::now() + std::chrono::seconds(1)).has_value());  // too few to time
}

}  // namespace
}  // namespace distbench
