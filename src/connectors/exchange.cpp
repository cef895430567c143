#include "connectors/exchange.hpp"

#include "connectors/handshake.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cerrno>
#include <cstdint>

namespace distbench::connectors {
namespace {

// A peer that went silent is judged together with the others that go within this time (a host with several ranks
// goes at once), so that the survivors agree on who prints the one error line.
constexpr auto kLostGrace = std::chrono::milliseconds(250);

// How much one peer's connection is read in one round of the loop, so that a fast sender cannot keep the thread
// from the others and from writing.
constexpr int kChunksPerRound = 16;

// What an abort frame says; std::nullopt for a rank that only follows another's word (a goodbye, in effect).
std::optional<PeerEvent> abort_event(int peer, const std::string& remote, const std::vector<std::byte>& payload) {
  PeerEvent e{PeerEvent::Kind::aborted, {peer}, 1, "(no reason given)", remote};
  const auto j = handshake::json_object({reinterpret_cast<const char*>(payload.data()), payload.size()});
  if (j) {
    const auto code = handshake::int_field(*j, "code", INT64_MIN, INT64_MAX);
    if (code) e.exit_code = handshake::documented_exit_code(*code);
    if (const auto reason = handshake::text_field(*j, "reason", kMaxHandshakeBytes)) e.reason = *reason;
    if (j->contains("follow") && (*j)["follow"] == true) return std::nullopt;
  }
  return e;
}

}  // namespace

Exchange::Exchange(int rank, std::vector<Link> links, OnEvent on_event)
    : rank_(rank), on_event_(std::move(on_event)), peers_(links.size()) {
  for (std::size_t r = 0; r < links.size(); ++r) {
    Peer& p = peers_[r];
    if (links[r].socket.valid()) {
      p.socket = std::move(links[r].socket);
      p.remote = std::move(links[r].remote);
      p.reader.feed(links[r].early);
    } else {
      p.closed = true;  // this rank itself
      p.reported = true;
    }
  }
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  thread_ = std::thread([this] { loop(); });
}

Exchange::~Exchange() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake();
  thread_.join();
  if (wake_fd_ >= 0) close(wake_fd_);
}

void Exchange::wake() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto n = write(wake_fd_, &one, sizeof(one));
}

std::uint64_t Exchange::post(int peer, const FrameHeader& header, std::span<const std::byte> payload) {
  auto bytes = encode_frame(header, payload);
  std::lock_guard lock(mutex_);
  Peer& p = peers_[static_cast<std::size_t>(peer)];
  const std::uint64_t ticket = p.next_ticket++;
  if (p.closed) return ticket;  // never leaves: wait_written says so
  p.out.push_back({ticket, std::move(bytes)});
  if (p.out.size() == 1) write_to(p);  // an idle link: straight out, without a round through the thread
  if (!p.out.empty()) wake();
  return ticket;
}

bool Exchange::wait_written(int peer, std::uint64_t ticket, Deadline deadline) {
  std::unique_lock lock(mutex_);
  const Peer& p = peers_[static_cast<std::size_t>(peer)];
  return changed_.wait_until(lock, deadline, [&] { return p.written >= ticket || p.closed; }) && p.written >= ticket;
}

Exchange::Taken Exchange::take(int peer, Channel channel, std::uint64_t sequence, Deadline deadline,
                               std::vector<std::byte>& out) {
  std::unique_lock lock(mutex_);
  Peer& p = peers_[static_cast<std::size_t>(peer)];
  while (true) {
    auto it = p.in.lower_bound({channel, 0});
    while (it != p.in.end() && it->first.first == channel && it->first.second < sequence) it = p.in.erase(it);
    if (it != p.in.end() && it->first == std::pair{channel, sequence}) {
      out = std::move(it->second);
      p.in.erase(it);
      return Taken::ok;
    }
    if (p.closed) return Taken::gone;
    if (changed_.wait_until(lock, deadline) == std::cv_status::timeout) {
      const auto last = p.in.find({channel, sequence});
      if (last == p.in.end()) return Taken::timed_out;
      out = std::move(last->second);
      p.in.erase(last);
      return Taken::ok;
    }
  }
}

void Exchange::finish(Deadline deadline) {
  std::vector<std::pair<int, std::uint64_t>> byes;
  {
    std::lock_guard lock(mutex_);
    quiet_ = true;
  }
  for (std::size_t r = 0; r < peers_.size(); ++r) {
    if (static_cast<int>(r) != rank_)
      byes.emplace_back(static_cast<int>(r), post(static_cast<int>(r), {FrameType::bye}, {}));
  }
  for (const auto& [peer, ticket] : byes) wait_written(peer, ticket, deadline);
  std::unique_lock lock(mutex_);
  changed_.wait_until(lock, deadline, [&] {
    for (const Peer& p : peers_) {
      if (!p.closed && !p.said_bye) return false;
    }
    return true;
  });
}

namespace {

// An abort frame's payload: the exit code, the reason, and whether the sender only follows another rank's word.
std::string abort_payload(int exit_code, const std::string& reason, bool follow) {
  nlohmann::json body = {{"code", exit_code}, {"reason", reason.substr(0, kMaxHandshakeBytes / 2)}};
  if (follow) body["follow"] = true;
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

void Exchange::leave_now(bool lead, int exit_code, const std::string& reason) {
  const std::string text = abort_payload(exit_code, reason, !lead);
  const auto frame = encode_frame({FrameType::abort}, std::as_bytes(std::span(text.data(), text.size())));
  std::lock_guard lock(mutex_);
  for (Peer& p : peers_) {
    if (p.closed) continue;
    p.out.push_back({p.next_ticket++, frame});
    write_to(p);  // what does not leave now never will: this process is about to end
  }
}

void Exchange::broadcast_abort(int exit_code, const std::string& reason, Deadline deadline) {
  const std::string text = abort_payload(exit_code, reason, false);
  const auto* first = reinterpret_cast<const std::byte*>(text.data());
  const std::span<const std::byte> payload(first, text.size());
  std::vector<std::pair<int, std::uint64_t>> sent;
  for (std::size_t r = 0; r < peers_.size(); ++r) {
    if (static_cast<int>(r) != rank_)
      sent.emplace_back(static_cast<int>(r), post(static_cast<int>(r), {FrameType::abort}, payload));
  }
  for (const auto& [peer, ticket] : sent) wait_written(peer, ticket, deadline);
}

void Exchange::write_to(Peer& p) {
  while (!p.out.empty()) {
    Outgoing& o = p.out.front();
    const ssize_t n =
        send(p.socket.fd(), o.bytes.data() + p.out_offset, o.bytes.size() - p.out_offset, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) return;  // full (EAGAIN), or broken: the reading side sees the connection's end
    p.out_offset += static_cast<std::size_t>(n);
    if (p.out_offset < o.bytes.size()) return;
    p.written = o.ticket;
    p.out.pop_front();
    p.out_offset = 0;
    changed_.notify_all();
  }
}

void Exchange::close_peer(int rank, Peer& p, const std::string& why, std::vector<PeerEvent>& events) {
  if (p.closed) return;
  p.closed = true;
  p.out.clear();
  p.socket.reset();
  if (!p.said_bye && !p.reported && !quiet_) {
    events.push_back({PeerEvent::Kind::lost, {rank}, 1, why, p.remote});
  }
  p.reported = true;
}

void Exchange::read_from(int rank, Peer& p, std::vector<PeerEvent>& events) {
  std::array<std::byte, 64 * 1024> chunk{};
  bool ended = false;
  std::string why;
  for (int chunks = 0; chunks < kChunksPerRound && !p.closed; ++chunks) {
    Status status;
    const long n = read_some(p.socket, chunk, status);
    if (n == -1) break;
    if (n == 0 || n == -2) {
      ended = true;
      why = n == 0 ? "its connection closed" : status.what;
      break;
    }
    p.reader.feed(std::span(chunk.data(), static_cast<std::size_t>(n)));
    while (auto frame = p.reader.next()) {
      switch (frame->header.type) {
        case FrameType::data: p.in[{frame->header.channel, frame->header.sequence}] = std::move(frame->payload); break;
        case FrameType::bye: p.said_bye = true; break;
        case FrameType::abort:
          if (auto e = abort_event(rank, p.remote, frame->payload)) {
            if (!p.reported && !quiet_) events.push_back(std::move(*e));
            p.reported = true;
          } else {
            p.said_bye = true;
          }
          break;
        default:
          close_peer(rank, p,
                     fmt::format("it sent a {} message after the rendezvous", static_cast<int>(frame->header.type)),
                     events);
          return;
      }
    }
    if (p.reader.failed()) {
      close_peer(rank, p, "it sent a malformed message: " + p.reader.error(), events);
      return;
    }
  }
  if (ended) close_peer(rank, p, why, events);
}

namespace {

// Peers lost within kLostGrace of the first, held to be reported as one event.
class LostPeerBatch {
 public:
  bool empty() const { return lost_.empty(); }
  // How long poll may wait: for ever with nothing held, else until the batch is due.
  int wait_ms() const { return lost_.empty() ? -1 : poll_timeout_ms(since_ + kLostGrace, 100); }
  void add(PeerEvent e) {
    if (lost_.empty()) since_ = Clock::now();
    lost_.push_back(std::move(e));
  }
  // Every peer held, as one event, once the grace has passed; std::nullopt before (or with none held).
  std::optional<PeerEvent> due() {
    if (lost_.empty() || Clock::now() < since_ + kLostGrace) return std::nullopt;
    PeerEvent all = lost_.front();
    for (std::size_t i = 1; i < lost_.size(); ++i) all.peers.push_back(lost_[i].peers.front());
    lost_.clear();
    return all;
  }

 private:
  std::vector<PeerEvent> lost_;
  Deadline since_{};
};

}  // namespace

void Exchange::report(const PeerEvent& e) const {
  if (on_event_) on_event_(e);
}

void Exchange::take_handshake_frames() {
  std::vector<PeerEvent> events;
  {
    std::lock_guard lock(mutex_);
    for (std::size_t r = 0; r < peers_.size(); ++r) {
      Peer& p = peers_[r];
      while (!p.closed) {
        auto frame = p.reader.next();
        if (!frame) break;
        if (frame->header.type == FrameType::data) {
          p.in[{frame->header.channel, frame->header.sequence}] = std::move(frame->payload);
        } else if (frame->header.type == FrameType::abort && !p.reported) {
          if (auto e = abort_event(static_cast<int>(r), p.remote, frame->payload)) {
            events.push_back(std::move(*e));
            p.reported = true;
          } else {
            p.said_bye = true;
          }
        }
      }
    }
  }
  for (const auto& e : events) report(e);
}

bool Exchange::watch(std::vector<pollfd>& fds, std::vector<int>& who) {
  fds.assign(1, {wake_fd_, POLLIN, 0});
  who.assign(1, -1);
  std::lock_guard lock(mutex_);
  if (stopping_) return false;
  for (std::size_t r = 0; r < peers_.size(); ++r) {
    const Peer& p = peers_[r];
    if (p.closed) continue;
    fds.push_back({p.socket.fd(), static_cast<short>(POLLIN | (p.out.empty() ? 0 : POLLOUT)), 0});
    who.push_back(static_cast<int>(r));
  }
  return true;
}

std::vector<PeerEvent> Exchange::serve(const std::vector<pollfd>& fds, const std::vector<int>& who) {
  if (fds[0].revents & POLLIN) {
    std::uint64_t count = 0;
    [[maybe_unused]] const auto n = read(wake_fd_, &count, sizeof(count));
  }
  std::vector<PeerEvent> events;
  std::lock_guard lock(mutex_);
  for (std::size_t i = 1; i < fds.size(); ++i) {
    Peer& p = peers_[static_cast<std::size_t>(who[i])];
    if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_from(who[i], p, events);
    if (!p.closed && (fds[i].revents & POLLOUT)) write_to(p);
  }
  changed_.notify_all();
  return events;
}

void Exchange::loop() {
  take_handshake_frames();  // what came with the handshake
  std::vector<pollfd> fds;
  std::vector<int> who;
  LostPeerBatch lost;  // held for kLostGrace after the first, then reported together
  while (watch(fds, who)) {
    poll(fds.data(), fds.size(), lost.wait_ms());
    for (auto& e : serve(fds, who)) {
      if (e.kind == PeerEvent::Kind::aborted) {
        report(e);  // the peer's own words explain it all
        continue;
      }
      lost.add(std::move(e));
    }
    if (const std::optional<PeerEvent> all = lost.due()) report(*all);
  }
}

}  // namespace distbench::connectors
