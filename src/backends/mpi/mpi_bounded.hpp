// Coordination messages that never wait past a deadline, for the Connector's *_until calls: a rank that stops
// answering (SIGSTOP, a hang) costs the others the time to their deadline and no more. Everything is non-blocking
// and polled from the main thread (MPI runs at THREAD_FUNNELED): MPI_Isend + MPI_Test to send, a matched probe
// (MPI_Improbe) + MPI_Imrecv to receive data of a size the receiver does not know.
//
// Each call gets its own tag, so that a message that arrives after its call gave up is never taken for a later
// call's: calls every rank makes (gather, broadcast) count through one sequence, and point-to-point calls count per
// peer and direction (the k-th send from A to B meets B's k-th receive from A, however the two interleave them with
// other peers). The two kinds use odd and even tags, so that they cannot meet either.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace distbench::mpi {

class BoundedMessages {
 public:
  using Deadline = std::chrono::steady_clock::time_point;

  // `comm` stays owned by the caller, who frees it after this object has released its requests.
  BoundedMessages(MPI_Comm comm, int rank, int size);
  BoundedMessages(const BoundedMessages&) = delete;
  BoundedMessages& operator=(const BoundedMessages&) = delete;

  // The Connector's gather_until, broadcast_until, send_until and receive_until (see core/comm/connector.hpp).
  std::vector<std::optional<std::vector<std::byte>>> gather(std::span<const std::byte> data, int root,
                                                            Deadline deadline);
  void broadcast(std::vector<std::byte>& data, int root, Deadline deadline);
  void send(int peer, std::span<const std::byte> data, Deadline deadline);
  std::vector<std::byte> receive(int peer, Deadline deadline);

  // Frees the requests of the messages that were given up on, before the communicator goes away. Their buffers stay
  // until this object is destroyed (after MPI_Finalize, when the connector owns MPI), since MPI may still use them.
  void release_requests() noexcept;

 private:
  // A message whose request is still in flight, with the bytes it sends from or receives into.
  struct Pending {
    MPI_Request request = MPI_REQUEST_NULL;
    std::shared_ptr<std::vector<std::byte>> buffer;
  };
  class Incoming;

  int tag_of(std::uint64_t sequence, int kind) const;
  int next_collective_tag() { return tag_of(collective_calls_++, 0); }
  void check_rank(int r, const char* what, const char* role) const;
  // Starts sending `buffer` to `peer`; the request joins `out`.
  void start_send(const std::shared_ptr<std::vector<std::byte>>& buffer, int peer, int tag, std::vector<Pending>& out);
  // Sends a copy of `data` to `peer`, waiting until it has left; throws Error(timeout) past `deadline`.
  void send_copy(std::span<const std::byte> data, int peer, int tag, Deadline deadline, const char* what);
  // The one message from `source` with `tag`; throws Error(timeout) when none arrived by `deadline`.
  std::vector<std::byte> receive_one(int source, int tag, Deadline deadline, const char* what);
  // Drops the given-up messages that have completed since.
  void reap();

  MPI_Comm comm_;
  int rank_;
  int size_;
  int tag_slots_ = 0;  // tag pairs between the first tag and MPI_TAG_UB; sequences wrap around after that many
  std::uint64_t collective_calls_ = 0;
  std::vector<std::uint64_t> sent_to_;        // per peer: send calls made
  std::vector<std::uint64_t> received_from_;  // per peer: receive calls made
  std::vector<Pending> given_up_;
};

}  // namespace distbench::mpi
