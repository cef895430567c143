#include "connectors/admission.hpp"

#include <poll.h>

#include <algorithm>
#include <array>

namespace distbench::connectors {

bool read_toward_frame(const Socket& socket, FrameReader& reader) {
  std::array<std::byte, 64 * 1024> chunk{};
  while (true) {
    const std::size_t want = std::min(reader.wanted(), chunk.size());
    if (want == 0) return true;  // a whole frame, or a bad header: the reader says which
    Status status;
    const long n = read_some(socket, std::span(chunk.data(), want), status);
    if (n == -1) return true;
    if (n <= 0) return false;
    reader.feed(std::span(chunk.data(), static_cast<std::size_t>(n)));
  }
}

Admission::Admission(std::vector<Socket> listeners) : listeners_(std::move(listeners)) {}

std::deque<Admission::Pending>::iterator Admission::find(ConnectionId id) {
  return std::find_if(pending_.begin(), pending_.end(), [id](const Pending& p) { return p.id == id; });
}

std::vector<Admission::Event> Admission::round(Deadline deadline) {
  std::vector<Event> events;
  std::vector<pollfd> fds;
  for (const auto& l : listeners_) fds.push_back({l.fd(), POLLIN, 0});
  for (const auto& p : pending_) fds.push_back({p.socket.fd(), static_cast<short>(p.framed ? 0 : POLLIN), 0});
  // Wake no later than the first connection's budget ends.
  Deadline wake = deadline;
  for (const auto& p : pending_) wake = std::min(wake, p.until);
  poll(fds.data(), fds.size(), poll_timeout_ms(wake, 200));

  const auto now = Clock::now();
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (now >= it->until) {
      events.push_back({Event::Kind::closed, it->id, {}, {}, std::nullopt});
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& p : pending_) {
    if (p.framed) continue;
    const bool open = read_toward_frame(p.socket, p.reader);
    if (auto frame = p.reader.next()) {
      p.framed = true;
      events.push_back({Event::Kind::frame, p.id, {}, {}, std::move(frame)});
    } else if (!open || p.reader.failed()) {
      p.framed = true;  // gone: dropped below
      events.push_back({Event::Kind::closed, p.id, {}, {}, std::nullopt});
    }
  }
  for (const auto& e : events) {
    if (e.kind == Event::Kind::closed) drop(e.id);
  }
  std::size_t accepted = 0;
  for (const auto& l : listeners_) {
    while (accepted < kAcceptsPerRound) {
      Socket s = accept_tcp(l);
      if (!s.valid()) break;
      ++accepted;
      if (pending_.size() >= kMaxPending) {
        // The oldest that has not sent its frame (one that has is the owner's to answer in this round).
        auto oldest = std::find_if(pending_.begin(), pending_.end(), [](const Pending& q) { return !q.framed; });
        if (oldest == pending_.end()) oldest = pending_.begin();
        events.push_back({Event::Kind::closed, oldest->id, {}, {}, std::nullopt});
        pending_.erase(oldest);
      }
      Pending p;
      p.id = next_id_++;
      p.until = now + kHandshakeSeconds;
      events.push_back({Event::Kind::opened, p.id, peer_address(s), peer_endpoint(s), std::nullopt});
      p.socket = std::move(s);
      pending_.push_back(std::move(p));
    }
  }
  return events;
}

bool Admission::send(ConnectionId id, std::span<const std::byte> bytes) {
  const auto it = find(id);
  if (it == pending_.end()) return false;
  if (write_now(it->socket, bytes)) return true;
  pending_.erase(it);
  return false;
}

Socket Admission::take(ConnectionId id) {
  const auto it = find(id);
  if (it == pending_.end()) return {};
  Socket s = std::move(it->socket);
  pending_.erase(it);
  return s;
}

void Admission::drop(ConnectionId id) {
  const auto it = find(id);
  if (it != pending_.end()) pending_.erase(it);
}

}  // namespace distbench::connectors
