// The door of an env:// listener during the rendezvous: the connections that have not yet proven who they are, each
// on a budget that no sender can stretch.
//
// - Time: a connection that has not sent its one handshake frame within kHandshakeSeconds of being accepted is
//   dropped (a silent connection, one that trickles bytes).
// - Bytes: a connection may send one frame of at most kMaxHandshakeBytes; nothing past that frame is read (a stream
//   after a valid header stays in the kernel's buffer, never in this process's memory).
// - Count: at most kMaxPending connections wait at once; past that, the oldest is dropped.
// - Work: one round accepts at most kAcceptsPerRound connections and reads each waiting one once, so that the
//   caller's loop sees its deadline after every round, whatever the senders do.
// The owner decides what a frame means (rank 0's rendezvous table, a rank's check of its peers' hellos): it takes
// the connection, or drops it.
#pragma once

#include "connectors/frame.hpp"
#include "connectors/socket.hpp"

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace distbench::connectors {

using ConnectionId = std::uint64_t;

inline constexpr auto kHandshakeSeconds = std::chrono::seconds(5);
inline constexpr std::size_t kMaxPending = 256;
inline constexpr std::size_t kAcceptsPerRound = 64;

// Reads from a non-blocking socket into `reader` no more than completes its next frame; false when the connection
// has ended or failed (what was read before stays in the reader).
bool read_toward_frame(const Socket& socket, FrameReader& reader);

class Admission {
 public:
  explicit Admission(std::vector<Socket> listeners);

  struct Event {
    enum class Kind { opened, frame, closed };
    Kind kind = Kind::opened;
    ConnectionId id = 0;
    std::string address;   // opened: the other end's address ("10.0.0.2")
    std::string endpoint;  // opened: and with its port ("10.0.0.2:41234")
    std::optional<Frame> frame;
  };

  // One round: waits until a listener or a waiting connection is readable, or `deadline` (at most 200 ms); accepts
  // new connections, drops those past their budget, reads. Every opened or framed connection must be answered
  // (send, take or drop) before the next round.
  std::vector<Event> round(Deadline deadline);

  // Sends to a waiting connection what it takes now (without waiting); false, and the connection is dropped, when
  // it did not take it all.
  bool send(ConnectionId id, std::span<const std::byte> bytes);
  // The connection, out of the door: a process that proved itself.
  Socket take(ConnectionId id);
  void drop(ConnectionId id);
  std::size_t waiting() const { return pending_.size(); }

 private:
  struct Pending {
    ConnectionId id = 0;
    Socket socket;
    FrameReader reader{kMaxHandshakeBytes};
    Deadline until{};
    bool framed = false;  // its one frame has come: nothing more is read
  };
  std::deque<Pending>::iterator find(ConnectionId id);

  std::vector<Socket> listeners_;
  std::deque<Pending> pending_;
  ConnectionId next_id_ = 1;
};

}  // namespace distbench::connectors
