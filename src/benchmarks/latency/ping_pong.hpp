// One side of a pair's ping-pong, as osu_latency runs it, and its verification.
#pragma once

#include "core/comm/communicator.hpp"
#include "core/comm/world.hpp"
#include "core/device/buffer.hpp"

#include <cstdint>
#include <string>

namespace distbench::latency {

// The pair's first rank (group rank 0) sends from its send buffer, then receives into its receive buffer; the second
// receives, then sends back: one blocking message each way (MPI_Send and MPI_Recv over MPI).
struct PingPong {
  Communicator* comm;  // the pair's communicator: two ranks
  Buffer* send;
  Buffer* recv;
  std::uint64_t bytes;
  Seconds timeout;  // for a backend without blocking calls (Communicator::send)

  int peer() const { return comm->rank() ^ 1; }
  void round_trip(const ArmedStep& step) const;
};

// Collective over the world (every pair at once): each rank fills its send buffer with its own pattern and poisons
// its receive buffer, one round trip runs, and each rank counts the bytes it received that differ from its peer's
// pattern (a broadcast's expectation on the pair, rooted at the peer). Returns the wrong bytes summed over every
// rank. The round trip and the count are steps of `watchdog`, named after `label`.
std::int64_t verify_ping_pong(World& world, const PingPong& pp, Watchdog& watchdog, const std::string& label);

}  // namespace distbench::latency
