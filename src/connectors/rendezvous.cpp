#include "connectors/rendezvous.hpp"

#include "connectors/admission.hpp"
#include "connectors/frame.hpp"
#include "connectors/handshake.hpp"
#include "core/error.hpp"
#include "core/sys/deadline.hpp"
#include "core/sys/quote.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <thread>

namespace distbench::connectors {
namespace {

using Json = nlohmann::json;
namespace hs = handshake;

constexpr auto kRejectGrace = std::chrono::seconds(2);
constexpr auto kAnswerGrace = std::chrono::seconds(5);

// Who this process is, for the first words of every error, and the secret it proves.
struct Self {
  const EnvSettings& settings;
  std::string host;
  double timeout_s;
  std::optional<hs::Key> secret;
  std::string name() const { return fmt::format("rank {} ({})", settings.rank, host); }
  std::string endpoint() const {
    return fmt::format("{}:{} ({})", settings.master_addr, settings.port, settings.port_origin);
  }
};

std::string_view text_of(const std::vector<std::byte>& payload) {
  return {reinterpret_cast<const char*>(payload.data()), payload.size()};
}

enum class Read { frame, timed_out, closed, malformed };

// The next whole frame on a connection this process opened, reading no more than that frame, until `deadline`.
Read read_frame(const Socket& s, FrameReader& reader, Deadline deadline, std::optional<Frame>& out) {
  while (true) {
    if ((out = reader.next())) return Read::frame;
    if (reader.failed()) return Read::malformed;
    if (!wait_readable(s, deadline)) return Read::timed_out;
    const bool open = read_toward_frame(s, reader);
    if ((out = reader.next())) return Read::frame;
    if (reader.failed()) return Read::malformed;
    if (!open) return Read::closed;
  }
}

// A reject's words and code, shown inert; `trusted`: its code counts (else it is usage, whatever it says).
Error rejected(ExitCode fallback, const std::string& prefix, const Frame& frame, bool trusted) {
  const auto j = hs::json_object(text_of(frame.payload));
  const std::string reason =
      j ? hs::text_field(*j, "reason", kMaxHandshakeBytes).value_or("(no reason given)") : "(no reason given)";
  int code = static_cast<int>(fallback);
  if (trusted && j) {
    code = hs::documented_exit_code(hs::int_field(*j, "code", INT64_MIN, INT64_MAX).value_or(1));
  }
  return Error(static_cast<ExitCode>(code), fmt::format("{}{}", prefix, excerpt(reason, 400)));
}

// ---------------------------------------------------------------------------------------------------------------
// Rank 0.

class Host {
 public:
  explicit Host(const Self& self) : self_(self) {}

  Joined run(Deadline deadline) {
    TableSettings ts;
    ts.world_size = self_.settings.world_size;
    ts.run_id = self_.settings.run_id;
    ts.secret = self_.secret;
    ts.self = {self_.host,
               "",
               0,
               self_.settings.local_rank.value_or(0),
               self_.settings.local_world_size.value_or(1),
               static_cast<int>(getpid())};
    ts.self_gave_local = self_.settings.local_rank.has_value();
    ts.endpoint = self_.endpoint();
    RendezvousTable table(std::move(ts));
    links_.resize(static_cast<std::size_t>(self_.settings.world_size));
    if (!table.complete()) {
      Admission door(open_listeners());
      if (!self_.secret) warn_without_secret();
      while (!table.complete()) {
        if (Clock::now() >= deadline) end_all(ExitCode::timeout, table.missing_text(self_.timeout_s));
        for (auto& e : door.round(deadline)) handle(e, door, table);
      }
    }
    return welcome(table, deadline);
  }

 private:
  // Listeners on MASTER_ADDR's addresses on this host. Every interface instead where the name cannot be the address
  // the others use: a name that resolves here to loopback only (as /etc/hosts maps a host's own name to 127.0.1.1
  // on Debian), or to no address of this host (a service address, NAT), or not at all (a service name that resolves
  // only once this process is up): the last two said once.
  std::vector<Socket> open_listeners() {
    const std::string& master = self_.settings.master_addr;
    Status status;
    const auto addresses = addresses_of(master, status);
    if (addresses.empty()) {
      fmt::print(stderr, "warning: {}: MASTER_ADDR={} does not resolve here ({}): rank 0 listens on every interface\n",
                 escape_text(self_.name()), escape_text(master), escape_text(status.what));
      return listen_everywhere();
    }
    in6_addr numeric{};
    const bool is_numeric =
        inet_pton(AF_INET, master.c_str(), &numeric) == 1 || inet_pton(AF_INET6, master.c_str(), &numeric) == 1;
    const bool loopback_only = std::all_of(addresses.begin(), addresses.end(), is_loopback);
    const bool local_name = master == "localhost" || master.ends_with(".localhost");
    std::vector<Socket> listeners;
    if (!loopback_only || is_numeric || local_name) {
      for (const auto& a : addresses) {
        Socket s = listen_tcp(a, self_.settings.port, status);
        if (s.valid()) {
          listeners.push_back(std::move(s));
        } else if (status.error == EADDRINUSE) {
          throw port_in_use();
        }
      }
      if (!listeners.empty()) return listeners;
      fmt::print(stderr,
                 "warning: {}: MASTER_ADDR={} is no address of this host ({}): rank 0 listens on every "
                 "interface; run rank 0 on MASTER_ADDR's host, or set MASTER_ADDR to one of its addresses\n",
                 escape_text(self_.name()), escape_text(master), fmt::join(addresses, ", "));
    }
    return listen_everywhere();
  }

  std::vector<Socket> listen_everywhere() const {
    Status status;
    Socket any = listen_tcp(self_.settings.port, status);
    if (!any.valid()) {
      if (status.error == EADDRINUSE) throw port_in_use();
      throw failure(fmt::format("{}: cannot listen for the other ranks: {}", self_.name(), status.what));
    }
    std::vector<Socket> listeners;
    listeners.push_back(std::move(any));
    return listeners;
  }

  Error port_in_use() const {
    return usage_error(
        fmt::format("{}: port {} ({}) is in use by another process; free it, or give the job another "
                    "port (MASTER_PORT, or DISTBENCH_MASTER_PORT for distbench alone)",
                    self_.name(), self_.settings.port, self_.settings.port_origin));
  }

  void warn_without_secret() const {
    fmt::print(stderr,
               "warning: {}: no job secret is set: any process that can reach {} can join this job as a rank, read "
               "its table of ranks, or end it; give every process the same secret, in a file named by "
               "DISTBENCH_JOB_SECRET_FILE (e.g. `head -c 32 /dev/urandom | base64 > job.secret`) or in "
               "DISTBENCH_JOB_SECRET\n",
               escape_text(self_.name()), escape_text(self_.endpoint()));
    std::fflush(stderr);
  }

  void handle(Admission::Event& e, Admission& door, RendezvousTable& table) {
    switch (e.kind) {
      case Admission::Event::Kind::opened:
        if (!door.send(e.id, table.opened(e.id, e.address, e.endpoint, hs::fresh_nonce()))) table.closed(e.id);
        return;
      case Admission::Event::Kind::closed: table.closed(e.id); return;
      case Admission::Event::Kind::frame: break;
    }
    Verdict v = table.received(e.id, *e.frame);
    switch (v.kind) {
      case Verdict::Kind::accept: {
        Socket s = door.take(e.id);
        // A proven process's fresh connection takes a short frame at once; should it not, the table's send fails
        // and names the rank.
        write_now(s, v.reply);
        std::string remote = peer_endpoint(s);
        links_[static_cast<std::size_t>(v.rank)] = Link{std::move(s), {}, std::move(remote)};
        return;
      }
      case Verdict::Kind::refuse:
        if (!v.reply.empty()) door.send(e.id, v.reply);
        door.drop(e.id);
        return;
      case Verdict::Kind::end_job: door.send(e.id, v.reply); end_all(v.code, v.reason);
    }
  }

  // Every process that joined hears why the job cannot start; rank 0 throws.
  [[noreturn]] void end_all(ExitCode code, const std::string& reason) {
    const Deadline grace = Clock::now() + kRejectGrace;
    const auto frame = RendezvousTable::reject_frame(code, reason);
    for (auto& link : links_) {
      if (link.socket.valid()) write_all(link.socket, frame, grace);
    }
    throw Error(code, fmt::format("{}: {}", self_.name(), reason));
  }

  Joined welcome(const RendezvousTable& table, Deadline deadline) {
    Joined out;
    out.ranks = *table.table();
    const auto frame = RendezvousTable::welcome_frame(out.ranks, hs::fresh_nonce());
    for (std::size_t r = 1; r < links_.size(); ++r) {
      const auto status = write_all(links_[r].socket, frame, deadline);
      if (!status.ok()) {
        end_all(ExitCode::failure,
                fmt::format("rank {} ({}) left during the rendezvous: {}", r, excerpt(out.ranks[r].host), status.what));
      }
    }
    out.links = std::move(links_);
    return out;
  }

  const Self& self_;
  std::vector<Link> links_;  // by rank: the connections taken
};

// ---------------------------------------------------------------------------------------------------------------
// Every other rank.

class Guest {
 public:
  explicit Guest(const Self& self) : self_(self) {}

  Joined run(Deadline deadline) {
    Joined out;
    out.links.resize(static_cast<std::size_t>(self_.settings.world_size));
    // Rank 0 knows who is missing: past its deadline (started no later than this one's), it says so to all.
    const Deadline answer = deadline + kAnswerGrace;
    FrameReader reader(kMaxHandshakeBytes);
    Socket root = join_rank0(deadline, answer, reader);
    reader.set_max_length(kMaxTableBytes);  // rank 0 has proven itself: its table may be large
    const hs::Nonce job = await_welcome(root, reader, answer, out);
    const hs::Key peers = hs::peer_key(self_.secret, job);
    std::string remote = peer_endpoint(root);
    out.links[0] = Link{std::move(root), reader.take_buffered(), std::move(remote)};
    for (int peer = 1; peer < self_.settings.rank; ++peer) {
      out.links[static_cast<std::size_t>(peer)] = connect_peer(peer, out, peers, deadline);
    }
    accept_peers(out, peers, deadline);
    return out;
  }

 private:
  [[noreturn]] void no_answer() const {
    throw Error(ExitCode::timeout,
                fmt::format("{}: rank 0 at {} did not complete the rendezvous within {:g} s (-T/--timeout): it waits "
                            "for all {} processes; is each one started, with the same MASTER_ADDR?",
                            self_.name(), self_.endpoint(), self_.timeout_s, self_.settings.world_size));
  }

  [[noreturn]] void not_rank0(const std::string& why) const {
    throw failure(fmt::format("{}: what answers at {} is not distbench's rank 0 of this version: {}", self_.name(),
                              self_.endpoint(), why));
  }

  // Connects to rank 0 and is taken as this rank: the challenge, the hello, rank 0's proof. A connection that rank 0
  // drops before answering (it was busy with strangers past its budget) is opened again, until the deadline.
  Socket join_rank0(Deadline deadline, Deadline answer, FrameReader& reader) {
    while (true) {
      Socket root = reach_rank0(deadline);
      if (!listener_.valid() && self_.settings.rank < self_.settings.world_size - 1) open_listener(root);
      reader = FrameReader(kMaxHandshakeBytes);
      if (say_hello(root, reader, answer)) return root;
      if (Clock::now() >= deadline) no_answer();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  // The higher ranks connect to this one at the address it reaches rank 0 from: the address they reach it at.
  void open_listener(const Socket& root) {
    Status status;
    const std::string local = local_address(root);
    listener_ = listen_tcp(local, 0, status);
    if (!listener_.valid()) {
      throw failure(fmt::format("{}: cannot listen for the other ranks on {}: {}", self_.name(), local, status.what));
    }
  }

  Socket reach_rank0(Deadline deadline) {
    auto pause = std::chrono::milliseconds(20);
    while (true) {
      Status status;
      Socket s = connect_tcp(self_.settings.master_addr, self_.settings.port, deadline, status);
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

  // The next frame from rank 0; false when the connection ended (before rank 0 took this process: try again).
  bool next_from_rank0(const Socket& root, FrameReader& reader, Deadline answer, std::optional<Frame>& f) {
    switch (read_frame(root, reader, answer, f)) {
      case Read::frame: return true;
      case Read::timed_out: no_answer();
      case Read::closed: return false;
      case Read::malformed: not_rank0(reader.error());
    }
    return false;
  }

  // The challenge, the hello with this process's proof, and rank 0's answer: true once rank 0 has taken this
  // process and proven itself; false when the connection ended first.
  bool say_hello(const Socket& root, FrameReader& reader, Deadline answer) {
    std::optional<Frame> frame;
    if (!next_from_rank0(root, reader, answer, frame)) return false;
    std::string why;
    const auto challenge = hs::read_challenge(*frame, why);
    if (!challenge) not_rank0(why);
    const hs::Nonce mine = hs::fresh_nonce();
    Json hello = {{"protocol", hs::kProtocol},
                  {"rank", self_.settings.rank},
                  {"world_size", self_.settings.world_size},
                  {"host", self_.host},
                  {"port", listener_.valid() ? local_port(listener_) : 0},
                  {"pid", static_cast<int>(getpid())},
                  {"run_id", self_.settings.run_id},
                  {"nonce", hs::hex(mine)},
                  {"secret", self_.secret.has_value()}};
    if (self_.settings.local_rank) {
      hello["local_rank"] = *self_.settings.local_rank;
      hello["local_size"] = *self_.settings.local_world_size;
    }
    const auto bytes =
        hs::frame_of(FrameType::hello, hs::sealed(self_.secret, hs::Purpose::hello, challenge->nonce, mine, hello));
    if (const auto s = write_all(root, bytes, answer); !s.ok()) {
      if (s.timed_out) no_answer();
      return false;
    }
    if (!next_from_rank0(root, reader, answer, frame)) return false;
    if (frame->header.type == FrameType::reject) {
      // Before rank 0 has proven itself, its words are shown but its code is not taken: usage, always.
      throw rejected(ExitCode::usage,
                     fmt::format("{}: rank 0 at {} turned this process away: ", self_.name(), self_.endpoint()), *frame,
                     false);
    }
    if (frame->header.type != FrameType::accepted) {
      not_rank0(fmt::format("it answered the hello with message type {}", static_cast<int>(frame->header.type)));
    }
    const auto u = hs::unseal(frame->payload);
    const auto body = u ? hs::json_object(u->body) : std::nullopt;
    if (!body || hs::int_field(*body, "rank", 0, INT_MAX) != self_.settings.rank) not_rank0("a malformed answer");
    if (self_.secret && !hs::proven(*u, *self_.secret, hs::Purpose::rank0, mine, challenge->nonce)) {
      throw usage_error(
          fmt::format("{}: rank 0 at {} did not prove that it holds this job's secret (from {}): its "
                      "secret differs, or what answers there is not this job's rank 0; give every "
                      "process the same secret",
                      self_.name(), self_.endpoint(), self_.settings.secret_origin));
    }
    return true;
  }

  // The table and the job's nonce from rank 0 (or its reason to end the rendezvous).
  hs::Nonce await_welcome(const Socket& root, FrameReader& reader, Deadline answer, Joined& out) {
    std::optional<Frame> frame;
    if (!next_from_rank0(root, reader, answer, frame)) {
      throw failure(
          fmt::format("{}: rank 0 at {} closed the connection during the rendezvous (it failed, and its "
                      "error line says why)",
                      self_.name(), self_.endpoint()));
    }
    if (frame->header.type == FrameType::reject) {
      throw rejected(ExitCode::failure, fmt::format("{}: the job cannot start: ", self_.name()), *frame, true);
    }
    const auto j = hs::json_object(text_of(frame->payload));
    const auto job = j ? hs::nonce_field(*j, "job") : std::nullopt;
    if (frame->header.type != FrameType::welcome || !job || !read_table(*j, out)) {
      throw failure(fmt::format("{}: rank 0 at {} sent a malformed table", self_.name(), self_.endpoint()));
    }
    return *job;
  }

  bool read_table(const Json& j, Joined& out) const {
    const int world = self_.settings.world_size;
    if (!j.contains("ranks") || !j["ranks"].is_array() || j["ranks"].size() != static_cast<std::size_t>(world)) {
      return false;
    }
    for (const auto& e : j["ranks"]) {
      if (!e.is_object()) return false;
      const auto host = hs::text_field(e, "host", 255);
      const auto address = hs::text_field(e, "address", 255);
      const auto port = hs::int_field(e, "port", 0, 65535);
      const auto local_size = hs::int_field(e, "local_size", 1, world);
      const auto local_rank = hs::int_field(e, "local_rank", 0, world - 1);
      const auto pid = hs::int_field(e, "pid", 0, 1LL << 40);
      if (!host || !address || !port || !local_size || !local_rank || !pid) return false;
      out.ranks.push_back({*host, *address, static_cast<int>(*port), static_cast<int>(*local_rank),
                           static_cast<int>(*local_size), static_cast<int>(*pid)});
    }
    return true;
  }

  // Connects to a lower rank and proves this rank belongs to the job; the lower rank proves it back.
  Link connect_peer(int peer, const Joined& out, const hs::Key& key, Deadline deadline) {
    const RankEntry& e = out.ranks[static_cast<std::size_t>(peer)];
    const std::string where = fmt::format("rank {} ({}) at {}:{}", peer, excerpt(e.host), e.address, e.port);
    const auto fail = [&](ExitCode code, const std::string& why) {
      return Error(code, fmt::format("{}: cannot connect to {}: {}", self_.name(), where, why));
    };
    Status status;
    Socket s = connect_tcp(e.address, e.port, deadline, status);
    if (!s.valid()) throw fail(status.timed_out ? ExitCode::timeout : ExitCode::failure, status.what);
    FrameReader reader(kMaxHandshakeBytes);
    std::optional<Frame> frame;
    const auto next = [&](const char* what) {
      switch (read_frame(s, reader, deadline, frame)) {
        case Read::frame: return;
        case Read::timed_out:
          throw fail(ExitCode::timeout, fmt::format("no {} within {:g} s (-T/--timeout)", what, self_.timeout_s));
        case Read::closed: throw fail(ExitCode::failure, fmt::format("it closed the connection before its {}", what));
        case Read::malformed: throw fail(ExitCode::failure, reader.error());
      }
    };
    next("challenge");
    std::string why;
    const auto challenge = hs::read_challenge(*frame, why);
    if (!challenge) throw fail(ExitCode::failure, why);
    const hs::Nonce mine = hs::fresh_nonce();
    const Json hello = {{"rank", self_.settings.rank}, {"nonce", hs::hex(mine)}};
    status = write_all(
        s, hs::frame_of(FrameType::peer_hello, hs::sealed(key, hs::Purpose::peer_hello, challenge->nonce, mine, hello)),
        deadline);
    if (!status.ok()) throw fail(status.timed_out ? ExitCode::timeout : ExitCode::failure, status.what);
    next("answer");
    const auto u = frame->header.type == FrameType::accepted ? hs::unseal(frame->payload) : std::nullopt;
    const auto body = u ? hs::json_object(u->body) : std::nullopt;
    if (!body || hs::int_field(*body, "rank", 0, INT_MAX) != peer ||
        !hs::proven(*u, key, hs::Purpose::peer_accepted, mine, challenge->nonce)) {
      throw fail(ExitCode::failure, "it did not prove that it belongs to this job");
    }
    std::string remote = peer_endpoint(s);
    return Link{std::move(s), reader.take_buffered(), std::move(remote)};
  }

  // The higher ranks' connections, each proven with the job's peer key; strangers are dropped.
  void accept_peers(Joined& out, const hs::Key& key, Deadline deadline) {
    const int rank = self_.settings.rank;
    const int world = self_.settings.world_size;
    std::vector<bool> present(static_cast<std::size_t>(world), true);
    int expected = world - 1 - rank;
    for (int r = rank + 1; r < world; ++r) present[static_cast<std::size_t>(r)] = false;
    if (expected == 0) return;
    std::vector<Socket> listeners;
    listeners.push_back(std::move(listener_));
    Admission door(std::move(listeners));
    std::map<ConnectionId, hs::Nonce> challenged;
    while (expected > 0) {
      if (Clock::now() >= deadline) {
        throw Error(ExitCode::timeout, fmt::format("{}: {} did not connect to this rank within {:g} s (-T/--timeout)",
                                                   self_.name(), missing_ranks(present), self_.timeout_s));
      }
      for (auto& e : door.round(deadline)) {
        if (e.kind == Admission::Event::Kind::opened) {
          const hs::Nonce nonce = hs::fresh_nonce();
          if (door.send(e.id, hs::challenge_frame(nonce, self_.secret.has_value()))) challenged[e.id] = nonce;
          continue;
        }
        const auto it = challenged.find(e.id);
        if (e.kind == Admission::Event::Kind::closed || it == challenged.end()) {
          if (it != challenged.end()) challenged.erase(it);
          door.drop(e.id);
          continue;
        }
        const hs::Nonce mine = it->second;
        challenged.erase(it);
        const auto u = e.frame->header.type == FrameType::peer_hello ? hs::unseal(e.frame->payload) : std::nullopt;
        const auto body = u ? hs::json_object(u->body) : std::nullopt;
        const auto peer = body ? hs::int_field(*body, "rank", rank + 1, world - 1) : std::nullopt;
        const auto theirs = body ? hs::nonce_field(*body, "nonce") : std::nullopt;
        if (!peer || !theirs || present[static_cast<std::size_t>(*peer)] ||
            !hs::proven(*u, key, hs::Purpose::peer_hello, mine, *theirs)) {
          door.drop(e.id);  // not a rank of this job: dropped without a word
          continue;
        }
        Socket s = door.take(e.id);
        write_now(s, hs::frame_of(FrameType::accepted,
                                  hs::sealed(key, hs::Purpose::peer_accepted, *theirs, mine, Json{{"rank", rank}})));
        present[static_cast<std::size_t>(*peer)] = true;
        std::string remote = peer_endpoint(s);
        out.links[static_cast<std::size_t>(*peer)] = Link{std::move(s), {}, std::move(remote)};
        --expected;
      }
    }
  }

  const Self& self_;
  Socket listener_;
};

}  // namespace

Joined rendezvous(const EnvSettings& settings, double timeout_s) {
  std::optional<hs::Key> secret;
  if (settings.secret) secret = hs::Key(settings.secret->begin(), settings.secret->end());
  const Self self{settings, host_name(), timeout_s, std::move(secret)};
  const Deadline deadline = deadline_after(timeout_s);
  if (settings.rank == 0) {
    Host host(self);
    return host.run(deadline);
  }
  Guest guest(self);
  return guest.run(deadline);
}

}  // namespace distbench::connectors
