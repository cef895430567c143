// The env:// rendezvous: how N processes that know only MASTER_ADDR, a port, their RANK and WORLD_SIZE (and, for a
// job that keeps strangers out, a secret they share) become one job with a TCP connection between every two of them.
//
// 1. Rank 0 listens on MASTER_ADDR's address at the port (not on every interface: a job on 127.0.0.1 is reachable
//    from this host only). Every other rank connects to rank 0 (retrying until the deadline: rank 0 may start last),
//    opens a listener of its own on the address it reaches rank 0 from (a free port), and answers rank 0's challenge
//    with its hello: its rank, the world size, its host and listening port, and its proof of the secret
//    (handshake.hpp: an HMAC of both sides' nonces; the secret itself never leaves the process).
// 2. Rank 0 judges each hello (rendezvous_table.hpp): a connection that does not speak the protocol, stays silent,
//    or sends more than one hello's worth is dropped and the rendezvous goes on (admission.hpp); a stranger without
//    the secret, a process of another run, a rank outside the world is turned away; a second proven claim on a rank
//    or a different world size ends the rendezvous for everyone, with one line that names both. A hello it takes is
//    answered with rank 0's own proof, which the rank checks. When every rank is in, rank 0 sends each the table of
//    all ranks and a random nonce for this job.
// 3. Each rank connects to every lower rank but 0 and proves itself with a key derived from the secret and the job's
//    nonce; the lower rank proves itself back. Every connection then carries the connector's messages
//    (exchange.hpp).
// Without a secret everything runs alike with empty proofs, as torchrun's variables alone describe the job, and rank
// 0 warns once that any process that can reach its port can join.
//
// Everything is bounded by one deadline. Errors are distbench::Error naming this rank and its host: usage (2) for a
// launch that cannot work as configured, timeout (4) for ranks that never came, failure (1) otherwise.
#pragma once

#include "connectors/env_settings.hpp"
#include "connectors/rendezvous_table.hpp"
#include "connectors/socket.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace distbench::connectors {

// A connection to a peer, and what came on it after the handshake.
struct Link {
  Socket socket;
  std::vector<std::byte> early;
  std::string remote;  // the other end, "10.0.0.2:41234", for messages that name the connection
};

struct Joined {
  std::vector<RankEntry> ranks;  // every rank, in rank order
  std::vector<Link> links;       // by rank; this rank's own is empty
};

Joined rendezvous(const EnvSettings& settings, double timeout_s);

}  // namespace distbench::connectors
