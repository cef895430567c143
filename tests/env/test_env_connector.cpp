// The env:// connector under tests/env/launch.py (N plain processes with torchrun's variables, no MPI): the contract
// every connector meets, and what env:// adds.
#include "backends/registry.hpp"
#include "core/comm/connector.hpp"
#include "tests/mpi/rank_failure_printer.hpp"
#include "tests/support/connector_contract.hpp"
#include "tests/support/test_step.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace distbench {
namespace {

std::unique_ptr<Connector>& formed() {
  static std::unique_ptr<Connector> c;  // set once in main, before the tests
  return c;
}

}  // namespace

Connector& contract::connector() { return *formed(); }

namespace {

TEST(EnvConnector, TheLaunchersVariablesDecide) {
  Connector& c = contract::connector();
  EXPECT_EQ(c.kind(), "env");
  EXPECT_EQ(c.rank(), std::atoi(std::getenv("RANK")));
  EXPECT_EQ(c.size(), std::atoi(std::getenv("WORLD_SIZE")));
  EXPECT_EQ(c.local_rank(), std::atoi(std::getenv("LOCAL_RANK")));
  EXPECT_EQ(c.local_size(), std::atoi(std::getenv("LOCAL_WORLD_SIZE")));
  EXPECT_NE(c.launch_description().find(std::string(std::getenv("MASTER_ADDR")) + ":" + std::getenv("MASTER_PORT")),
            std::string::npos)
      << c.launch_description();
}

// Many calls of each kind, interleaved: the sequences of the collective, bounded and point-to-point calls never
// mix, and large payloads arrive whole.
TEST(EnvConnector, ManyCallsOfEveryKindInterleaved) {
  Connector& c = contract::connector();
  const int next = (c.rank() + 1) % c.size();
  const int prev = (c.rank() + c.size() - 1) % c.size();
  for (int round = 0; round < 50; ++round) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::vector<std::byte> big(static_cast<std::size_t>(round % 7 == 0 ? (3 << 20) + round : 16 + round),
                               static_cast<std::byte>(c.rank() + round));
    c.send_until(next, big, deadline);
    const auto values = allgather_value(c, c.rank() * 1000 + round, test_step());
    for (int r = 0; r < c.size(); ++r) EXPECT_EQ(values[static_cast<std::size_t>(r)], r * 1000 + round);
    const auto got = c.receive_until(prev, deadline);
    ASSERT_EQ(got.size(), big.size());
    EXPECT_EQ(got.front(), static_cast<std::byte>(prev + round));
    std::string text = c.is_root() ? std::string(static_cast<std::size_t>(round), 'r') : "";
    broadcast_string_until(c, text, 0, deadline);
    EXPECT_EQ(text.size(), static_cast<std::size_t>(round));
  }
  c.barrier(test_step());
}

}  // namespace
}  // namespace distbench

int main(int argc, char** argv) {
  using namespace distbench;
  auto& c = formed();
  try {
    c = make_connector(argc, argv, {"env", 60.0});
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  ::testing::InitGoogleTest(&argc, argv);
  mpitest::quiet_unless_rank0(c->rank());
  int code = RUN_ALL_TESTS();
  for (int other : allgather_value(*c, code, test_step())) code = std::max(code, other);
  c.reset();
  return code;
}
