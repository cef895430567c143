// The env:// connector's message exchange: after the rendezvous, one thread of its own does all socket I/O with
// every peer. The caller posts frames (they leave in order, whatever the peer does: a frame given up on by its
// caller still leaves whole once the peer reads again, so a stream is never cut mid-frame) and takes data frames by
// (peer, channel, sequence), each wait bounded by a deadline.
//
// The thread also watches for the job breaking: a peer's abort frame (every link is one the rendezvous proved: no
// stranger's abort reaches this far; its exit code is limited to the documented ones), or a peer whose connection
// ends without its goodbye (it died, was killed, or its host went away). It reports them to `on_event`, on its own
// thread: an abort at once, lost peers together once a short grace has passed since the first (a host's ranks go at
// once). Taking from a lost peer fails at once instead of waiting.
#pragma once

#include "connectors/frame.hpp"
#include "connectors/rendezvous.hpp"

#include <poll.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace distbench::connectors {

struct PeerEvent {
  enum class Kind { aborted, lost };
  Kind kind = Kind::lost;
  std::vector<int> peers;  // aborted: the one that did; lost: every peer lost within a moment of the first
  int exit_code = 1;       // aborted: the code the peer ends with (one README.md documents)
  std::string reason;      // aborted: the peer's words; lost: how the first connection ended
  std::string remote;      // aborted: the connection it came over ("10.0.0.2:41234")
};

class Exchange {
 public:
  using OnEvent = std::function<void(const PeerEvent&)>;

  // `links` by rank (this rank's own empty); the thread starts at once.
  Exchange(int rank, std::vector<Link> links, OnEvent on_event);
  ~Exchange();
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  // Queues a frame to `peer`; the ticket says when it has left (written()).
  std::uint64_t post(int peer, const FrameHeader& header, std::span<const std::byte> payload);
  // Waits until the frame of `ticket` to `peer` has left, or `deadline`; false at the deadline or when the peer is
  // gone. The frame stays queued either way.
  bool wait_written(int peer, std::uint64_t ticket, Deadline deadline);

  enum class Taken { ok, timed_out, gone };
  // The data frame from `peer` on `channel` with `sequence`; frames of earlier sequences on that channel (their
  // calls gave up) are dropped. `gone` when the peer's connection has ended and nothing matching is left.
  Taken take(int peer, Channel channel, std::uint64_t sequence, Deadline deadline, std::vector<std::byte>& out);

  // Says goodbye to every peer and waits, until `deadline`, for theirs (or their connection's end), so that no peer
  // takes this rank's leaving for a failure while it still reads. Events stop being reported.
  void finish(Deadline deadline);

  // Sends an abort frame to every peer, waiting until `deadline` at most for them to leave.
  void broadcast_abort(int exit_code, const std::string& reason, Deadline deadline);
  // From the thread that reports events, about to end the process: tells every peer at once, without waiting,
  // either why the job ends (`lead`: this rank speaks for the job, as an abort) or only that this rank follows
  // another's word and leaves (the peers take it as a goodbye, not as a loss).
  void leave_now(bool lead, int exit_code, const std::string& reason);

 private:
  struct Outgoing {
    std::uint64_t ticket = 0;
    std::vector<std::byte> bytes;
  };
  struct Peer {
    Socket socket;
    FrameReader reader{kMaxDataBytes};
    std::deque<Outgoing> out;
    std::size_t out_offset = 0;  // bytes of out.front() already written
    std::uint64_t next_ticket = 1;
    std::uint64_t written = 0;  // tickets up to this one have left
    std::map<std::pair<Channel, std::uint64_t>, std::vector<std::byte>> in;
    std::string remote;  // the other end of the connection
    bool said_bye = false;
    bool closed = false;  // the connection has ended (or failed); nothing more comes or goes
    bool reported = false;
  };

  // The thread: what came with the handshake, then each round's poll, reads and writes, and the events found.
  void loop();
  void take_handshake_frames();
  // The eventfd and every open connection to poll (`who`: their ranks); false once the Exchange is stopping.
  bool watch(std::vector<pollfd>& fds, std::vector<int>& who);
  // After a poll: reads and writes what the connections are ready for; the events found.
  std::vector<PeerEvent> serve(const std::vector<pollfd>& fds, const std::vector<int>& who);
  void report(const PeerEvent& e) const;
  // Reads what `p` has; frames go to its inbox. Events found go to `events` (reported outside the lock).
  void read_from(int rank, Peer& p, std::vector<PeerEvent>& events);
  void write_to(Peer& p);
  void close_peer(int rank, Peer& p, const std::string& why, std::vector<PeerEvent>& events);
  void wake();

  const int rank_;
  OnEvent on_event_;
  std::vector<Peer> peers_;  // by rank; this rank's own has no socket
  int wake_fd_ = -1;         // an eventfd: posted frames and stopping wake the thread
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  bool quiet_ = false;  // finishing: a peer's end is no longer an event
  std::thread thread_;
};

}  // namespace distbench::connectors
