// The env:// rendezvous: how N processes that know only MASTER_ADDR, a port, their RANK and WORLD_SIZE become one
// job with a TCP connection between every two of them.
//
// 1. Rank 0 listens on the port. Every other rank opens a listener of its own (a free port), connects to rank 0
//    (retrying until the deadline: rank 0 may start last) and says hello: its rank, the world size, its host and
//    listening port.
// 2. Rank 0 checks each hello: a connection that does not speak the protocol (a port scanner, another program) is
//    dropped and the rendezvous goes on; a process of another run is turned away; a second claim on a rank or a
//    different world size ends the rendezvous for everyone, with one line that names both. When every rank has
//    said hello, rank 0 sends each the table of all ranks and a random token for this job.
// 3. Each rank connects to every lower rank but 0 and says hello with the token; it accepts the higher ranks'
//    connections. Every connection then carries the connector's messages (exchange.hpp).
//
// Everything is bounded by one deadline. Errors are distbench::Error naming this rank and its host: usage (2) for a
// launch that cannot work as configured, timeout (4) for ranks that never came, failure (1) otherwise.
#pragma once

#include "connectors/env_settings.hpp"
#include "connectors/socket.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace distbench::env {

struct RankEntry {
  std::string host;
  std::string address;  // where the others reach it ("" for rank 0: they reach it at MASTER_ADDR)
  int port = 0;         // its listener (0: nobody connects to it)
  int local_rank = 0;
  int local_size = 1;
  int pid = 0;
};

// A connection to a peer, and what came on it after the handshake.
struct Link {
  net::Socket socket;
  std::vector<std::byte> early;
};

struct Joined {
  std::vector<RankEntry> ranks;  // every rank, in rank order
  std::vector<Link> links;       // by rank; this rank's own is empty
};

Joined rendezvous(const EnvSettings& settings, double timeout_s);

// Ranks on the same host, by host name: each rank's local rank and local size, in rank order.
void number_local_ranks(std::vector<RankEntry>& ranks);

}  // namespace distbench::env
