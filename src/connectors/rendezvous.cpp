#include "connectors/rendezvous.hpp"

#include "connectors/frame.hpp"
#include "core/comm/deadline.hpp"
#include "core/error.hpp"
#include "core/report/text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <thread>

namespace distbench::env {
namespace {

using net::Clock;
using net::Deadline;
using wire::Frame;
using wire::FrameType;
using Json = nlohmann::json;

constexpr std::string_view kProtocol = "distbench-env/1";
constexpr std::size_t kMaxPending = 256;  // connections held at once that have not yet said who they are
constexpr auto kRejectGrace = std::chrono::seconds(2);
constexpr auto kAnswerGrace = std::chrono::seconds(5);

// Who this process is, for the first words of every error.
struct Self {
  const EnvSettings& settings;
  std::string host;
  double timeout_s;
  std::string name() const { return fmt::format("rank {} ({})", settings.rank, host); }
  std::string endpoint() const { return fmt::format("{}:{} ({})", settings.master_addr, settings.port, settings.port_origin); }
};

std::vector<std::byte> bytes_of(const Json& j) {
  const std::string text = j.dump();
  const auto* first = reinterpret_cast<const std::byte*>(text.data());
  return {first, first + text.size()};
}

std::optional<Json> json_of(const std::vector<std::byte>& payload) {
  const auto* first = reinterpret_cast<const char*>(payload.data());
  Json j = Json::parse(first, first + payload.size(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

std::optional<std::int64_t> int_field(const Json& j, const char* key, std::int64_t low, std::int64_t high) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  const auto v = it->get<std::int64_t>();
  if (v < low || v > high) return std::nullopt;
  return v;
}

std::optional<std::string> text_field(const Json& j, const char* key, std::size_t max_size) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  auto s = it->get<std::string>();
  if (s.size() > max_size) return std::nullopt;
  return s;
}

net::Status send_frame(const net::Socket& s, FrameType type, const Json& body, Deadline deadline) {
  const auto payload = bytes_of(body);
  return net::write_all(s, wire::encode_frame({type, wire::Channel::collective, 0, 0}, payload), deadline);
}

// Reads what a non-blocking socket has into `reader`; false at the end of the stream or on an error.
bool pump(const net::Socket& s, wire::FrameReader& reader) {
  std::array<std::byte, 64 * 1024> chunk{};
  while (true) {
    net::Status status;
    const long n = net::read_some(s, chunk, status);
    if (n == -1) return true;
    if (n <= 0) return false;
    reader.feed(std::span(chunk.data(), static_cast<std::size_t>(n)));
  }
}

// A connection that has not yet said who it is.
struct Pending {
  net::Socket socket;
  wire::FrameReader reader{wire::kMaxHandshakeBytes};
};

// Accepts what waits on `listener` into `pending`, dropping the oldest unidentified ones past kMaxPending.
void accept_all(const net::Socket& listener, std::deque<Pending>& pending) {
  while (true) {
    net::Socket s = net::accept_tcp(listener);
    if (!s.valid()) return;
    if (pending.size() >= kMaxPending) pending.pop_front();
    pending.push_back(Pending{std::move(s), wire::FrameReader(wire::kMaxHandshakeBytes)});
  }
}

// Polls the listener and the pending connections until something is readable or the deadline.
void wait_for_input(const net::Socket& listener, const std::deque<Pending>& pending, Deadline deadline) {
  std::vector<pollfd> fds{{listener.fd(), POLLIN, 0}};
  for (const auto& p : pending) fds.push_back({p.socket.fd(), POLLIN, 0});
  poll(fds.data(), fds.size(), net::poll_timeout_ms(deadline, 200));
}

// The first whole frame of each pending connection, for `take` to judge; connections that end, fail or speak
// something else are dropped.
template <typename Take>
void read_pending(std::deque<Pending>& pending, Take take) {
  for (auto it = pending.begin(); it != pending.end();) {
    const bool open = pump(it->socket, it->reader);
    auto frame = it->reader.next();
    if (frame) {
      take(*it, std::move(*frame));  // takes the connection, or leaves it invalid to drop it
      it = pending.erase(it);
    } else if (!open || it->reader.failed()) {
      it = pending.erase(it);
    } else {
      ++it;
    }
  }
}

std::uint64_t random_token() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

Json entry_json(const RankEntry& e) {
  return {{"host", e.host}, {"address", e.address}, {"port", e.port}, {"local_rank", e.local_rank},
          {"local_size", e.local_size}, {"pid", e.pid}};
}

std::string missing_ranks(const std::vector<bool>& present) {
  std::vector<int> missing;
  for (std::size_t r = 0; r < present.size(); ++r) {
    if (!present[r]) missing.push_back(static_cast<int>(r));
  }
  if (missing.size() > 16) {
    return fmt::format("{} ranks ({} .. {})", missing.size(), missing.front(), missing.back());
  }
  return fmt::format("{} {}", missing.size() == 1 ? "rank" : "ranks", fmt::join(missing, ", "));
}

// ---------------------------------------------------------------------------------------------------------------
// Rank 0.

struct Member {
  Link link;
  RankEntry entry;
  bool gave_local = false;
};

class Host {
 public:
  explicit Host(const Self& self) : self_(self), members_(static_cast<std::size_t>(self.settings.world_size)) {}

  Joined run(Deadline deadline) {
    if (self_.settings.world_size == 1) return welcome(deadline);
    net::Status status;
    listener_ = net::listen_tcp(self_.settings.port, status);
    if (!listener_.valid()) {
      if (status.error == EADDRINUSE) {
        throw usage_error(fmt::format("{}: port {} ({}) is in use by another process; free it, or give the job "
                                      "another port (MASTER_PORT, or DISTBENCH_MASTER_PORT for distbench alone)",
                                      self_.name(), self_.settings.port, self_.settings.port_origin));
      }
      throw failure(fmt::format("{}: cannot listen for the other ranks: {}", self_.name(), status.what));
    }
    std::deque<Pending> pending;
    while (joined_ < self_.settings.world_size) {
      if (Clock::now() >= deadline) {
        std::vector<bool> present(members_.size());
        present[0] = true;
        for (std::size_t r = 1; r < members_.size(); ++r) present[r] = members_[r].has_value();
        end_all(ExitCode::timeout,
                fmt::format("{} did not join rank 0 at {} within {:g} s (-T/--timeout); {} of {} did",
                            missing_ranks(present), self_.endpoint(), self_.timeout_s, joined_,
                            self_.settings.world_size));
      }
      wait_for_input(listener_, pending, deadline);
      accept_all(listener_, pending);
      read_pending(pending, [this](Pending& p, Frame frame) { judge(p, std::move(frame)); });
    }
    listener_.reset();
    return welcome(deadline);
  }

 private:
  void judge(Pending& p, Frame frame) {
    if (frame.header.type != FrameType::hello) return;
    const auto j = json_of(frame.payload);
    if (!j || text_field(*j, "protocol", 64) != kProtocol) return;
    const auto rank = int_field(*j, "rank", 0, kMaxEnvWorld - 1);
    const auto world = int_field(*j, "world_size", 1, kMaxEnvWorld);
    const auto host = text_field(*j, "host", 255);
    const auto port = int_field(*j, "port", 0, 65535);
    const auto pid = int_field(*j, "pid", 0, 1LL << 40);
    const auto run_id = text_field(*j, "run_id", 1024);
    if (!rank || !world || !host || !port || !pid || !run_id) return;
    const std::string who = fmt::format("a process on {} (pid {})", *host, *pid);
    if (*run_id != self_.settings.run_id) {
      send_frame(p.socket, FrameType::reject,
                 {{"code", static_cast<int>(ExitCode::usage)},
                  {"reason", fmt::format("rank 0 at {} serves run '{}', this process belongs to run '{}' "
                                         "(TORCHELASTIC_RUN_ID)",
                                         self_.endpoint(), self_.settings.run_id, *run_id)}},
                 Clock::now() + kRejectGrace);
      return;
    }
    if (*world != self_.settings.world_size) {
      reject_and_end(p, fmt::format("{} has WORLD_SIZE={}, rank 0 has WORLD_SIZE={}: every process must be given "
                                    "the same WORLD_SIZE",
                                    who, *world, self_.settings.world_size));
    }
    const auto r = static_cast<std::size_t>(*rank);
    if (r == 0 || members_[r]) {
      const std::string first = r == 0 ? fmt::format("{} (pid {}, rank 0 itself)", self_.host, getpid())
                                       : fmt::format("{} (pid {})", members_[r]->entry.host, members_[r]->entry.pid);
      reject_and_end(p, fmt::format("RANK={} is claimed by two processes, on {} and on {} (pid {}): give each "
                                    "process its own RANK, 0 .. WORLD_SIZE-1",
                                    r, first, *host, *pid));
    }
    Member m;
    m.entry.host = *host;
    m.entry.address = net::peer_address(p.socket);
    m.entry.port = static_cast<int>(*port);
    m.entry.pid = static_cast<int>(*pid);
    const auto local_size = int_field(*j, "local_size", 1, *world);
    const auto local_rank = local_size ? int_field(*j, "local_rank", 0, *local_size - 1) : std::nullopt;
    if (local_rank) {
      m.entry.local_rank = static_cast<int>(*local_rank);
      m.entry.local_size = static_cast<int>(*local_size);
      m.gave_local = true;
    }
    m.link.early = p.reader.take_buffered();
    m.link.socket = std::move(p.socket);
    members_[r] = std::move(m);
    ++joined_;
  }

  // A launch that cannot work: every process that joined, and the one that made it fail, hear why; rank 0 throws.
  [[noreturn]] void reject_and_end(Pending& p, const std::string& reason) {
    send_frame(p.socket, FrameType::reject, {{"code", static_cast<int>(ExitCode::usage)}, {"reason", reason}},
               Clock::now() + kRejectGrace);
    end_all(ExitCode::usage, reason);
  }

  [[noreturn]] void end_all(ExitCode code, const std::string& reason) {
    const Deadline grace = Clock::now() + kRejectGrace;
    for (auto& m : members_) {
      if (m) send_frame(m->link.socket, FrameType::reject, {{"code", static_cast<int>(code)}, {"reason", reason}}, grace);
    }
    throw Error(code, fmt::format("{}: {}", self_.name(), reason));
  }

  Joined welcome(Deadline deadline) {
    Joined out;
    out.ranks.resize(members_.size());
    out.links.resize(members_.size());
    out.ranks[0] = {self_.host, "", 0, self_.settings.local_rank.value_or(0),
                    self_.settings.local_world_size.value_or(1), static_cast<int>(getpid())};
    bool all_local = self_.settings.local_rank.has_value();
    for (std::size_t r = 1; r < members_.size(); ++r) {
      out.ranks[r] = members_[r]->entry;
      all_local = all_local && members_[r]->gave_local;
    }
    if (!all_local) number_local_ranks(out.ranks);
    Json table = Json::array();
    for (const auto& e : out.ranks) table.push_back(entry_json(e));
    const Json body = {{"token", random_token()}, {"ranks", table}};
    for (std::size_t r = 1; r < members_.size(); ++r) {
      const auto status = send_frame(members_[r]->link.socket, FrameType::welcome, body, deadline);
      if (!status.ok()) {
        end_all(ExitCode::failure, fmt::format("rank {} ({}) left during the rendezvous: {}", r,
                                               members_[r]->entry.host, status.what));
      }
      out.links[r] = std::move(members_[r]->link);
    }
    return out;
  }

  const Self& self_;
  net::Socket listener_;
  std::vector<std::optional<Member>> members_;
  int joined_ = 1;
};

// ---------------------------------------------------------------------------------------------------------------
// Every other rank.

class Guest {
 public:
  explicit Guest(const Self& self) : self_(self) {}

  Joined run(Deadline deadline) {
    const int rank = self_.settings.rank;
    const int world = self_.settings.world_size;
    net::Status status;
    if (rank < world - 1) {  // the higher ranks connect to this one
      listener_ = net::listen_tcp(0, status);
      if (!listener_.valid()) throw failure(fmt::format("{}: cannot listen for the other ranks: {}", self_.name(), status.what));
    }
    net::Socket root = reach_rank0(deadline);
    Json hello = {{"protocol", kProtocol},
                  {"rank", rank},
                  {"world_size", world},
                  {"host", self_.host},
                  {"port", listener_.valid() ? net::local_port(listener_) : 0},
                  {"pid", static_cast<int>(getpid())},
                  {"run_id", self_.settings.run_id}};
    if (self_.settings.local_rank) {
      hello["local_rank"] = *self_.settings.local_rank;
      hello["local_size"] = *self_.settings.local_world_size;
    }
    if (const auto s = send_frame(root, FrameType::hello, hello, deadline); !s.ok()) {
      throw failure(fmt::format("{}: rank 0 at {} did not take this process's hello: {}", self_.name(),
                                self_.endpoint(), s.what));
    }
    Joined out;
    out.links.resize(static_cast<std::size_t>(world));
    // Rank 0 knows who is missing: past its deadline (started no later than this one's), it says so to all.
    const std::uint64_t token = await_welcome(root, deadline + kAnswerGrace, out);
    out.links[0].socket = std::move(root);
    for (int peer = 1; peer < rank; ++peer) out.links[static_cast<std::size_t>(peer)] = connect_peer(peer, out, token, deadline);
    accept_peers(out, token, deadline);
    return out;
  }

 private:
  net::Socket reach_rank0(Deadline deadline) {
    auto pause = std::chrono::milliseconds(20);
    while (true) {
      net::Status status;
      net::Socket s = net::connect_tcp(self_.settings.master_addr, self_.settings.port, deadline, status);
      if (s.valid()) return s;
      if (Clock::now() + pause >= deadline) {
        throw Error(ExitCode::timeout,
                    fmt::format("{}: could not reach rank 0 at {} within {:g} s (-T/--timeout): {}; is rank 0 "
                                "running, and MASTER_ADDR right?",
                                self_.name(), self_.endpoint(), self_.timeout_s, status.what));
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(500));
    }
  }

  // The table and the job's token from rank 0 (or its reason to end the rendezvous).
  std::uint64_t await_welcome(const net::Socket& root, Deadline deadline, Joined& out) {
    wire::FrameReader reader(wire::kMaxTableBytes);
    while (true) {
      if (!net::wait_readable(root, deadline)) {
        throw Error(ExitCode::timeout,
                    fmt::format("{}: rank 0 at {} did not complete the rendezvous within {:g} s (-T/--timeout): it "
                                "waits for all {} processes; is each one started, with the same MASTER_ADDR?",
                                self_.name(), self_.endpoint(), self_.timeout_s, self_.settings.world_size));
      }
      const bool open = pump(root, reader);
      if (reader.failed()) {
        throw failure(fmt::format("{}: what answers at {} is not distbench's rank 0: {}", self_.name(),
                                  self_.endpoint(), reader.error()));
      }
      if (auto frame = reader.next()) {
        const auto j = json_of(frame->payload);
        if (frame->header.type == FrameType::reject && j) {
          const auto code = int_field(*j, "code", 1, 255).value_or(static_cast<int>(ExitCode::failure));
          throw Error(static_cast<ExitCode>(code),
                      fmt::format("{}: the job cannot start: {}", self_.name(),
                                  text_field(*j, "reason", wire::kMaxHandshakeBytes).value_or("(no reason given)")));
        }
        if (frame->header.type != FrameType::welcome || !j || !read_table(*j, out)) {
          throw failure(fmt::format("{}: rank 0 at {} sent a malformed table", self_.name(), self_.endpoint()));
        }
        out.links[0].early = reader.take_buffered();
        return (*j)["token"].get<std::uint64_t>();
      }
      if (!open) {
        throw failure(fmt::format("{}: rank 0 at {} closed the connection during the rendezvous (it failed, and its "
                                  "error line says why; or what listens there is not distbench)",
                                  self_.name(), self_.endpoint()));
      }
    }
  }

  bool read_table(const Json& j, Joined& out) const {
    const int world = self_.settings.world_size;
    if (!j.contains("token") || !j["token"].is_number_unsigned() || !j.contains("ranks") || !j["ranks"].is_array() ||
        j["ranks"].size() != static_cast<std::size_t>(world)) {
      return false;
    }
    for (const auto& e : j["ranks"]) {
      if (!e.is_object()) return false;
      const auto host = text_field(e, "host", 255);
      const auto address = text_field(e, "address", 255);
      const auto port = int_field(e, "port", 0, 65535);
      const auto local_size = int_field(e, "local_size", 1, world);
      const auto local_rank = int_field(e, "local_rank", 0, world - 1);
      const auto pid = int_field(e, "pid", 0, 1LL << 40);
      if (!host || !address || !port || !local_size || !local_rank || !pid) return false;
      out.ranks.push_back({*host, *address, static_cast<int>(*port), static_cast<int>(*local_rank),
                           static_cast<int>(*local_size), static_cast<int>(*pid)});
    }
    return true;
  }

  Link connect_peer(int peer, const Joined& out, std::uint64_t token, Deadline deadline) {
    const RankEntry& e = out.ranks[static_cast<std::size_t>(peer)];
    net::Status status;
    net::Socket s = net::connect_tcp(e.address, e.port, deadline, status);
    if (s.valid()) status = send_frame(s, FrameType::peer_hello, {{"token", token}, {"rank", self_.settings.rank}}, deadline);
    if (!s.valid() || !status.ok()) {
      throw Error(status.timed_out ? ExitCode::timeout : ExitCode::failure,
                  fmt::format("{}: cannot connect to rank {} ({}) at {}:{}: {}", self_.name(), peer, e.host, e.address,
                              e.port, status.what));
    }
    return Link{std::move(s), {}};
  }

  void accept_peers(Joined& out, std::uint64_t token, Deadline deadline) {
    const int rank = self_.settings.rank;
    const int world = self_.settings.world_size;
    std::vector<bool> present(static_cast<std::size_t>(world), true);
    int expected = world - 1 - rank;
    for (int r = rank + 1; r < world; ++r) present[static_cast<std::size_t>(r)] = false;
    std::deque<Pending> pending;
    while (expected > 0) {
      if (Clock::now() >= deadline) {
        throw Error(ExitCode::timeout, fmt::format("{}: {} did not connect to this rank within {:g} s (-T/--timeout)",
                                                   self_.name(), missing_ranks(present), self_.timeout_s));
      }
      wait_for_input(listener_, pending, deadline);
      accept_all(listener_, pending);
      read_pending(pending, [&](Pending& p, Frame frame) {
        const auto j = json_of(frame.payload);
        if (frame.header.type != FrameType::peer_hello || !j || !j->contains("token") ||
            !(*j)["token"].is_number_unsigned() || (*j)["token"].get<std::uint64_t>() != token) {
          return;
        }
        const auto peer = int_field(*j, "rank", rank + 1, world - 1);
        if (!peer || present[static_cast<std::size_t>(*peer)]) return;
        present[static_cast<std::size_t>(*peer)] = true;
        out.links[static_cast<std::size_t>(*peer)] = Link{std::move(p.socket), p.reader.take_buffered()};
        --expected;
      });
    }
    listener_.reset();
  }

  const Self& self_;
  net::Socket listener_;
};

}  // namespace

void number_local_ranks(std::vector<RankEntry>& ranks) {
  std::map<std::string, int> count;
  for (auto& e : ranks) e.local_rank = count[e.host]++;
  for (auto& e : ranks) e.local_size = count[e.host];
}

Joined rendezvous(const EnvSettings& settings, double timeout_s) {
  const Self self{settings, net::host_name(), timeout_s};
  const Deadline deadline = deadline_after(timeout_s);
  if (settings.rank == 0) {
    Host host(self);
    return host.run(deadline);
  }
  Guest guest(self);
  return guest.run(deadline);
}

}  // namespace distbench::env
