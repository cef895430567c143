// The latency benchmark's ping-pong over the MPI backend's blocking send and receive: every byte arrives at every size
// (none, one, uneven, past Open MPI's eager limit), and its verification counts the messages of wrong implementations
// (a message one byte short, a reply from the receive buffer instead of the send buffer).
#include "core/comm/forwarding_communicator.hpp"
#include "tests/mpi/mpi_environment.hpp"

#include "benchmarks/latency/ping_pong.hpp"
#include "core/comm/groups.hpp"
#include "tests/support/test_step.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string_view>

namespace distbench::latency {
namespace {

using mpitest::world;

constexpr Seconds kPingPongTimeout{60.0};

// A wrong implementation around the real communicator: everything forwards, but `send` misbehaves as told.
class MutantSends final : public ForwardingCommunicator {
 public:
  enum class Mutation { one_byte_short, sends_the_receive_buffer };
  MutantSends(Communicator& real, Mutation mutation, Buffer* recv)
      : ForwardingCommunicator(real), mutation_(mutation), recv_(recv) {}

  void send(BufferRef data, std::size_t bytes, int peer, Seconds timeout, const ArmedStep& step) override {
    if (mutation_ == Mutation::one_byte_short) {
      // the receiver still expects `bytes`: a shorter message is legal in MPI and leaves the last byte poisoned
      real().send(data, bytes - 1, peer, timeout, step);
    } else {
      real().send({recv_, 0}, bytes, peer, timeout, step);
    }
  }

 private:
  Mutation mutation_;
  Buffer* recv_;
};

Communicator& pairs() {
  return world().communicator(consecutive_partition(world().connector().size(), 2), test_step());
}

TEST(Latency, EveryByteArrivesBothWaysAtEverySize) {
  Communicator& comm = pairs();
  for (std::uint64_t bytes : {0ULL, 1ULL, 3ULL, 4097ULL, 65536ULL, 1ULL << 20}) {
    auto send = world().device().allocate(bytes + 1);
    auto recv = world().device().allocate(bytes + 1);
    const PingPong pp{&comm, send.get(), recv.get(), bytes, kPingPongTimeout};
    EXPECT_EQ(verify_ping_pong(world(), pp, test_watchdog(), "ping-pong"), 0) << bytes << " B";
    for (int i = 0; i < 3; ++i)
      pp.round_trip(test_step());  // sampling's back-to-back round trips keep the pairs in step
    EXPECT_EQ(verify_ping_pong(world(), pp, test_watchdog(), "ping-pong"), 0) << bytes << " B, after more round trips";
  }
}

TEST(Latency, TheCheckCountsAMessageOneByteShort) {
  Communicator& real = pairs();
  auto send = world().device().allocate(4096);
  auto recv = world().device().allocate(4096);
  MutantSends mutant(real, MutantSends::Mutation::one_byte_short, recv.get());
  const PingPong pp{&mutant, send.get(), recv.get(), 4096, kPingPongTimeout};
  // each rank's last received byte stays poisoned
  EXPECT_EQ(verify_ping_pong(world(), pp, test_watchdog(), "ping-pong"), world().connector().size());
}

TEST(Latency, TheCheckCountsAReplyFromTheWrongBuffer) {
  Communicator& real = pairs();
  auto send = world().device().allocate(1000);
  auto recv = world().device().allocate(1000);
  MutantSends mutant(real, MutantSends::Mutation::sends_the_receive_buffer, recv.get());
  const PingPong pp{&mutant, send.get(), recv.get(), 1000, kPingPongTimeout};
  EXPECT_GT(verify_ping_pong(world(), pp, test_watchdog(), "ping-pong"), 0);
}

}  // namespace
}  // namespace distbench::latency
