// What every Connector must do, whatever forms the job (MPI, env://): ranks and nodes, the collectives over small
// host data, the bounded calls and their deadlines. A test program includes this once and defines
// contract::connector() as the connector its main formed; every rank runs every test.
#pragma once

#include "core/comm/connector.hpp"
#include "core/comm/phase_over_ranks.hpp"
#include "core/error.hpp"
#include "test_step.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace distbench {
namespace contract {
Connector& connector();
}  // namespace contract

namespace {

TEST(ConnectorContract, RanksAndNodes) {
  Connector& c = contract::connector();
  EXPECT_GE(c.rank(), 0);
  EXPECT_LT(c.rank(), c.size());
  EXPECT_EQ(c.root_rank(), 0);
  EXPECT_FALSE(c.hostname().empty());
  // Every local rank is distinct on its node and below the node's size.
  const auto nodes = c.node_of_ranks();
  ASSERT_EQ(nodes.size(), static_cast<std::size_t>(c.size()));
  const auto local = allgather_value(c, c.local_rank(), test_step());
  const auto local_sizes = allgather_value(c, c.local_size(), test_step());
  const auto hosts = allgather_string(c, c.hostname(), test_step());
  for (int r = 0; r < c.size(); ++r) {
    int on_node = 0;
    for (int q = 0; q < c.size(); ++q) {
      if (nodes[static_cast<std::size_t>(q)] == nodes[static_cast<std::size_t>(r)]) {
        ++on_node;
        EXPECT_EQ(hosts[static_cast<std::size_t>(q)], hosts[static_cast<std::size_t>(r)]);
        if (q != r) {
          EXPECT_NE(local[static_cast<std::size_t>(q)], local[static_cast<std::size_t>(r)]);
        }
      }
    }
    EXPECT_EQ(local_sizes[static_cast<std::size_t>(r)], on_node);
    EXPECT_LT(local[static_cast<std::size_t>(r)], on_node);
  }
}

TEST(ConnectorContract, BroadcastGatherAllgather) {
  Connector& c = contract::connector();
  std::string text = c.is_root() ? "from the root" : "";
  broadcast_string(c, text, 0, test_step());
  EXPECT_EQ(text, "from the root");

  int value = c.rank() * 10;
  broadcast_value(c, value, c.size() - 1, test_step());
  EXPECT_EQ(value, (c.size() - 1) * 10);

  // Different lengths per rank.
  std::vector<int> mine(static_cast<std::size_t>(c.rank() + 1), c.rank());
  const auto gathered = gather_vector<int>(c, mine, 0, test_step());
  if (c.is_root()) {
    ASSERT_EQ(gathered.size(), static_cast<std::size_t>(c.size()));
    for (int r = 0; r < c.size(); ++r) {
      EXPECT_EQ(gathered[static_cast<std::size_t>(r)], std::vector<int>(static_cast<std::size_t>(r + 1), r));
    }
  } else {
    EXPECT_TRUE(gathered.empty());
  }
  const auto everyone = allgather_string(c, std::string(static_cast<std::size_t>(c.rank()), 'x'), test_step());
  ASSERT_EQ(everyone.size(), static_cast<std::size_t>(c.size()));
  for (int r = 0; r < c.size(); ++r)
    EXPECT_EQ(everyone[static_cast<std::size_t>(r)].size(), static_cast<std::size_t>(r));
  c.barrier(test_step());
}

TEST(ConnectorContract, RaiseIfAnyAgreesOnTheLowestFailingRank) {
  Connector& c = contract::connector();
  EXPECT_NO_THROW(raise_if_any(c, nullptr, test_step()));
  const Error mine = usage_error("rank " + std::to_string(c.rank()) + " objects");
  const bool fails = c.rank() == c.size() - 1;
  try {
    raise_if_any(c, fails ? &mine : nullptr, test_step());
    FAIL() << "every rank must throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_EQ(std::string(e.what()), "rank " + std::to_string(c.size() - 1) + " objects");
  }
}

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Generous for calls that should succeed (the tests oversubscribe the cores); the short ones expire on purpose.
constexpr auto kPlenty = 60s;
constexpr auto kShort = 300ms;
constexpr auto kSlack = 3s;  // how late a call may return after its deadline on a busy, oversubscribed machine
constexpr auto kAway = 1s;   // long enough for every rank to send a small message, even on a loaded machine

std::vector<std::byte> payload(int rank, int round, std::size_t bytes) {
  std::vector<std::byte> out(bytes);
  for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<std::byte>((rank * 31 + round * 7 + i) & 0xFF);
  return out;
}

std::size_t payload_size(int rank) { return static_cast<std::size_t>(3 * rank + 1); }

TEST(ConnectorContractUntil, GatherUntilGetsEveryRanksPayload) {
  Connector& c = contract::connector();
  const int root = c.size() - 1;
  const auto gathered = c.gather_until(payload(c.rank(), 1, payload_size(c.rank())), root, Clock::now() + kPlenty);
  if (c.rank() == root) {
    ASSERT_EQ(gathered.size(), static_cast<std::size_t>(c.size()));
    for (int r = 0; r < c.size(); ++r) {
      ASSERT_TRUE(gathered[static_cast<std::size_t>(r)].has_value()) << "rank " << r;
      EXPECT_EQ(*gathered[static_cast<std::size_t>(r)], payload(r, 1, payload_size(r))) << "rank " << r;
    }
  } else {
    EXPECT_TRUE(gathered.empty());
  }
  const auto strings = gather_strings_until(c, std::string(payload_size(c.rank()), 'a'), 0, Clock::now() + kPlenty);
  if (c.is_root()) {
    ASSERT_EQ(strings.size(), static_cast<std::size_t>(c.size()));
    for (int r = 0; r < c.size(); ++r) {
      EXPECT_EQ(strings[static_cast<std::size_t>(r)], std::string(payload_size(r), 'a'));
    }
  }
  c.barrier(test_step());
}

TEST(ConnectorContractUntil, BroadcastUntilDeliversDataOfASizeOnlyTheRootKnows) {
  Connector& c = contract::connector();
  std::string text = c.is_root() ? std::string("from the root, ") + std::string(100, 'z') : "stale";
  broadcast_string_until(c, text, 0, Clock::now() + kPlenty);
  EXPECT_EQ(text, std::string("from the root, ") + std::string(100, 'z'));
  // Large enough for the rendezvous protocol of every transport.
  const int root = c.size() - 1;
  std::vector<std::byte> data = c.rank() == root ? payload(root, 2, 1 << 20) : std::vector<std::byte>(3);
  c.broadcast_until(data, root, Clock::now() + kPlenty);
  EXPECT_EQ(data, payload(root, 2, 1 << 20));
  c.barrier(test_step());
}

// A rank that receives nothing times out near its deadline. The message it waited for, sent late, is never taken
// for a later receive's (SendReceiveUntilAroundARing checks what arrives next).
TEST(ConnectorContractUntil, ReceiveUntilTimesOutWhenNothingIsSent) {
  Connector& c = contract::connector();
  const int next = (c.rank() + 1) % c.size();
  const int prev = (c.rank() + c.size() - 1) % c.size();
  const auto start = Clock::now();
  try {
    c.receive_until(prev, start + kShort);
    ADD_FAILURE() << "nothing was sent: receive_until must time out";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::timeout);
    EXPECT_NE(std::string(e.what()).find("receive_until"), std::string::npos) << e.what();
  }
  const auto waited = Clock::now() - start;
  EXPECT_GE(waited, kShort);
  EXPECT_LT(waited, kShort + kSlack);
  c.barrier(test_step());
  c.send_until(next, payload(c.rank(), 3, 8), Clock::now() + kPlenty);  // late: its receive has given up
  c.barrier(test_step());
}

// A phase reduced along the tree of bounded messages (core/comm/phase_over_ranks.hpp) is what reducing every rank's
// gathered samples makes, for every root and every -a; the samples differ on every rank and at every index.
TEST(ConnectorContractUntil, APhaseReducedAlongATreeIsThePhaseOfTheGatheredSamples) {
  Connector& c = contract::connector();
  std::vector<double> mine;
  for (int i = 0; i < 7; ++i) mine.push_back(1e-6 * (1 + ((c.rank() * 5 + i * 3) % 11)) + 1e-9 * c.rank());
  for (int root = 0; root < c.size(); ++root) {
    for (RankAverage average : {RankAverage::rank0, RankAverage::avg, RankAverage::min, RankAverage::max}) {
      const auto gathered = gather_vector<double>(c, mine, root, test_step());
      const ReducedPhase tree =
          reduce_phase_over_ranks(c, "time", mine, average, root, test_step(), Clock::now() + kPlenty);
      if (c.rank() != root) {
        EXPECT_TRUE(tree.stats.samples.empty());
        continue;
      }
      const ReducedPhase expected = reduce_phase("time", gathered, average);
      const std::string where = fmt::format("root {}, -a {}", root, name(average));
      ASSERT_EQ(tree.stats.samples.size(), expected.stats.samples.size()) << where;
      for (std::size_t i = 0; i < expected.stats.samples.size(); ++i) {
        EXPECT_NEAR(tree.stats.samples[i], expected.stats.samples[i], 1e-15) << where << ", sample " << i;
      }
      EXPECT_EQ(tree.rank_means, expected.rank_means) << where;
      EXPECT_EQ(tree.stats.rank_spread.max, expected.stats.rank_spread.max) << where;
      EXPECT_EQ(tree.stats.rank_spread.rank0, expected.stats.rank_spread.rank0) << where;
      EXPECT_NEAR(tree.stats.summary.median, expected.stats.summary.median, 1e-15) << where;
    }
  }
  c.barrier(test_step());
}

TEST(ConnectorContractUntil, SendReceiveUntilAroundARing) {
  Connector& c = contract::connector();
  const int next = (c.rank() + 1) % c.size();
  const int prev = (c.rank() + c.size() - 1) % c.size();
  for (int round = 0; round < 3; ++round) {
    const auto deadline = Clock::now() + kPlenty;
    c.send_until(next, payload(c.rank(), 10 + round, payload_size(c.rank()) + round), deadline);
    EXPECT_EQ(c.receive_until(prev, deadline), payload(prev, 10 + round, payload_size(prev) + round))
        << "round " << round;
  }
  c.barrier(test_step());
}

// The last rank stays away from one gather (as a stopped process would) and sends its part only after the root has
// given up: the root names it, returns near its deadline, and the late part is never taken for the next gather's.
TEST(ConnectorContractUntil, GatherUntilNamesTheRankThatDidNotSend) {
  Connector& c = contract::connector();
  if (c.size() < 2) GTEST_SKIP() << "needs a rank that stays away";
  const int late = c.size() - 1;
  if (c.rank() == late) {
    c.barrier(test_step());  // the root has given up
    c.gather_until(payload(c.rank(), 20, payload_size(c.rank())), 0, Clock::now() + kPlenty);
  } else {
    const auto start = Clock::now();
    const auto gathered =
        c.gather_until(payload(c.rank(), 20, payload_size(c.rank())), 0, start + (c.is_root() ? kShort : kPlenty));
    if (c.is_root()) {
      const auto waited = Clock::now() - start;
      EXPECT_GE(waited, kShort);
      EXPECT_LT(waited, kShort + kSlack);
      ASSERT_EQ(gathered.size(), static_cast<std::size_t>(c.size()));
      for (int r = 0; r < c.size(); ++r) {
        EXPECT_EQ(gathered[static_cast<std::size_t>(r)].has_value(), r != late) << "rank " << r;
      }
    }
    c.barrier(test_step());
  }
  c.barrier(test_step());
  const auto next = c.gather_until(payload(c.rank(), 21, payload_size(c.rank()) + 1), 0, Clock::now() + kPlenty);
  if (c.is_root()) {
    ASSERT_EQ(next.size(), static_cast<std::size_t>(c.size()));
    for (int r = 0; r < c.size(); ++r) {
      ASSERT_TRUE(next[static_cast<std::size_t>(r)].has_value()) << "rank " << r;
      EXPECT_EQ(*next[static_cast<std::size_t>(r)], payload(r, 21, payload_size(r) + 1)) << "rank " << r;
    }
  }
  c.barrier(test_step());
}

// A root that comes to a gather after its deadline (it was stopped, or starved) still takes every part already
// sent: one look at what has arrived is not always enough to receive it (MPI's first probe only starts that), and
// a rank that kept time must not be named for the root's lateness.
TEST(ConnectorContractUntil, GatherUntilPastItsDeadlineTakesWhatWasSent) {
  Connector& c = contract::connector();
  c.barrier(test_step());
  if (!c.is_root()) c.gather_until(payload(c.rank(), 40, payload_size(c.rank())), 0, Clock::now() + kPlenty);
  if (c.is_root()) {
    // Away from every call for a second, as a stopped process is: the parts arrive meanwhile, nothing takes them in.
    std::this_thread::sleep_for(kAway);
    const auto start = Clock::now();
    const auto gathered = c.gather_until(payload(0, 40, payload_size(0)), 0, start - kShort);
    EXPECT_LT(Clock::now() - start, kSlack);
    EXPECT_EQ(gathered.size(), static_cast<std::size_t>(c.size()));
    for (std::size_t r = 0; r < gathered.size(); ++r) {  // no ASSERT: every rank must reach the barrier below
      EXPECT_TRUE(gathered[r].has_value()) << "rank " << r << " sent its part, but the late root did not take it";
      if (gathered[r]) {
        EXPECT_EQ(*gathered[r], payload(static_cast<int>(r), 40, payload_size(static_cast<int>(r))));
      }
    }
  }
  c.barrier(test_step());
}

// The root of a broadcast too large to leave eagerly returns by its deadline when a rank does not listen; that
// rank still gets the data once it does (the root keeps the data until MPI is done with it).
TEST(ConnectorContractUntil, BroadcastUntilRootReturnsWhenARankDoesNotListen) {
  Connector& c = contract::connector();
  if (c.size() < 2) GTEST_SKIP() << "needs a rank that stays away";
  const int late = c.size() - 1;
  const auto expected = payload(0, 30, 4 << 20);
  std::vector<std::byte> data = c.is_root() ? expected : std::vector<std::byte>();
  if (c.rank() == late) {
    c.barrier(test_step());
    c.broadcast_until(data, 0, Clock::now() + kPlenty);
  } else {
    const auto start = Clock::now();
    c.broadcast_until(data, 0, start + (c.is_root() ? kShort : kPlenty));
    if (c.is_root()) {
      EXPECT_LT(Clock::now() - start, kShort + kSlack);
    }
    c.barrier(test_step());
  }
  EXPECT_EQ(data, expected);
  c.barrier(test_step());
}

}  // namespace
}  // namespace distbench
