#include "connectors/rendezvous_table.hpp"

#include "connectors/env_settings.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <climits>

namespace distbench::connectors {
namespace {

using Json = nlohmann::json;

// How many turned-away connections rank 0 names at the deadline (the others are counted).
constexpr std::size_t kTurnedAwayNamed = 3;

constexpr std::string_view kSecretVariables = "DISTBENCH_JOB_SECRET_FILE (or DISTBENCH_JOB_SECRET)";

Json entry_json(const RankEntry& e) {
  return {{"host", e.host},
          {"address", e.address},
          {"port", e.port},
          {"local_rank", e.local_rank},
          {"local_size", e.local_size},
          {"pid", e.pid}};
}

}  // namespace

void number_local_ranks(std::vector<RankEntry>& ranks) {
  std::map<std::string, int> count;
  for (auto& e : ranks) e.local_rank = count[e.host]++;
  for (auto& e : ranks) e.local_size = count[e.host];
}

std::string missing_ranks(const std::vector<bool>& present) {
  std::vector<std::size_t> missing;
  for (std::size_t r = 0; r < present.size(); ++r) {
    if (!present[r]) missing.push_back(r);
  }
  if (missing.size() > 16) {
    return fmt::format("{} ranks ({} .. {})", missing.size(), missing.front(), missing.back());
  }
  return fmt::format("{} {}", missing.size() == 1 ? "rank" : "ranks", fmt::join(missing, ", "));
}

RendezvousTable::RendezvousTable(TableSettings settings)
    : settings_(std::move(settings)), members_(static_cast<std::size_t>(std::max(settings_.world_size, 1))) {}

std::vector<std::byte> RendezvousTable::opened(ConnectionId id, const std::string& address, const std::string& endpoint,
                                               const handshake::Nonce& nonce) {
  waiting_[id] = Waiting{address, endpoint, nonce};
  return handshake::challenge_frame(nonce, settings_.secret.has_value());
}

void RendezvousTable::closed(ConnectionId id) { waiting_.erase(id); }

std::optional<ConnectionId> RendezvousTable::holder(int rank) const {
  if (rank < 1 || rank >= settings_.world_size) return std::nullopt;
  const auto& m = members_[static_cast<std::size_t>(rank)];
  if (!m) return std::nullopt;
  return m->id;
}

Verdict RendezvousTable::refuse(const Waiting& w, std::int64_t rank, std::string_view note, std::string why) {
  ++turned_away_count_;
  if (turned_away_.size() < kTurnedAwayNamed) {
    turned_away_.push_back(fmt::format("a connection from {} claiming rank {} {}", w.endpoint, rank, note));
  }
  Verdict v;
  v.kind = Verdict::Kind::refuse;
  v.reason = std::move(why);
  v.reply = reject_frame(ExitCode::usage, v.reason);
  return v;
}

Verdict RendezvousTable::end_job(std::string reason) const {
  Verdict v;
  v.kind = Verdict::Kind::end_job;
  v.code = ExitCode::usage;
  v.reason = std::move(reason);
  v.reply = reject_frame(v.code, v.reason);
  return v;
}

// A hello's claims, each read within its bounds.
struct RendezvousTable::Hello {
  handshake::Unsealed unsealed;
  std::int64_t rank = 0;
  std::int64_t world = 0;
  std::string host;
  std::int64_t port = 0;
  std::int64_t pid = 0;
  std::string run_id;
  handshake::Nonce nonce{};
  bool claims_secret = false;
  std::optional<std::int64_t> local_size;  // both, or neither
  std::optional<std::int64_t> local_rank;
};

std::optional<RendezvousTable::Hello> RendezvousTable::read_hello(const Frame& frame) {
  if (frame.header.type != FrameType::hello) return std::nullopt;
  const auto u = handshake::unseal(frame.payload);
  if (!u) return std::nullopt;
  const auto j = handshake::json_object(u->body);
  if (!j || handshake::text_field(*j, "protocol", 64) != handshake::kProtocol) return std::nullopt;
  const auto rank = handshake::int_field(*j, "rank", 0, INT_MAX);
  const auto world = handshake::int_field(*j, "world_size", 1, kMaxEnvWorld);
  const auto host = handshake::text_field(*j, "host", 255);
  const auto port = handshake::int_field(*j, "port", 0, 65535);
  const auto pid = handshake::int_field(*j, "pid", 0, 1LL << 40);
  const auto run_id = handshake::text_field(*j, "run_id", 1024);
  const auto nonce = handshake::nonce_field(*j, "nonce");
  const auto has_secret = j->find("secret");
  if (!rank || !world || !host || !port || !pid || !run_id || !nonce || has_secret == j->end() ||
      !has_secret->is_boolean()) {
    return std::nullopt;
  }
  Hello h{*u, *rank, *world, *host, *port, *pid, *run_id, *nonce, has_secret->get<bool>(), std::nullopt, std::nullopt};
  const auto local_size = handshake::int_field(*j, "local_size", 1, *world);
  const auto local_rank = local_size ? handshake::int_field(*j, "local_rank", 0, *local_size - 1) : std::nullopt;
  if (local_rank) {
    h.local_size = local_size;
    h.local_rank = local_rank;
  }
  return h;
}

std::optional<Verdict> RendezvousTable::refuse_stranger(const Waiting& w, const Hello& h) {
  if (settings_.secret) {
    if (!h.claims_secret) {
      return refuse(w, h.rank, "without the job's secret",
                    fmt::format("rank 0 at {} requires the job's secret and this process has none: give every process "
                                "the same {}",
                                settings_.endpoint, kSecretVariables));
    }
    if (!handshake::proven(h.unsealed, *settings_.secret, handshake::Purpose::hello, w.nonce, h.nonce)) {
      return refuse(w, h.rank, "with a wrong job secret",
                    fmt::format("this process's job secret is not the one of rank 0 at {}: give every process the "
                                "same {}",
                                settings_.endpoint, kSecretVariables));
    }
  } else if (h.claims_secret) {
    return refuse(w, h.rank, "with a job secret, and rank 0 has none",
                  fmt::format("this process has a job secret and rank 0 at {} has none: give every process the same "
                              "{}, or none",
                              settings_.endpoint, kSecretVariables));
  }
  return std::nullopt;
}

std::optional<Verdict> RendezvousTable::refuse_launch(const Waiting& w, const Hello& h) {
  const std::string who = fmt::format("a process on {} (pid {})", excerpt(h.host), h.pid);
  if (h.run_id != settings_.run_id) {
    return refuse(w, h.rank, fmt::format("of another run ('{}')", excerpt(h.run_id)),
                  fmt::format("rank 0 at {} serves run '{}', this process belongs to run '{}' (TORCHELASTIC_RUN_ID)",
                              settings_.endpoint, excerpt(settings_.run_id), excerpt(h.run_id)));
  }
  if (h.world != settings_.world_size) {
    return end_job(
        fmt::format("{} has WORLD_SIZE={}, rank 0 has WORLD_SIZE={}: every process must be given the "
                    "same WORLD_SIZE",
                    who, h.world, settings_.world_size));
  }
  if (h.rank >= settings_.world_size) {
    return refuse(w, h.rank, fmt::format("outside WORLD_SIZE={}", settings_.world_size),
                  fmt::format("RANK={} is outside WORLD_SIZE={}: give each process its own RANK, 0 .. WORLD_SIZE-1",
                              h.rank, settings_.world_size));
  }
  const auto r = static_cast<std::size_t>(h.rank);
  if (r == 0 || members_[r]) {
    const std::string first =
        r == 0 ? fmt::format("{} (pid {}, rank 0 itself)", excerpt(settings_.self.host), settings_.self.pid)
               : fmt::format("{} (pid {})", excerpt(members_[r]->entry.host), members_[r]->entry.pid);
    return end_job(
        fmt::format("RANK={} is claimed by two processes, on {} and on {} (pid {}): give each process "
                    "its own RANK, 0 .. WORLD_SIZE-1",
                    r, first, excerpt(h.host), h.pid));
  }
  return std::nullopt;
}

Verdict RendezvousTable::accept(ConnectionId id, const Waiting& w, const Hello& h) {
  const auto r = static_cast<std::size_t>(h.rank);
  Member m;
  m.id = id;
  m.entry.host = h.host;
  m.entry.address = w.address;
  m.entry.port = static_cast<int>(h.port);
  m.entry.pid = static_cast<int>(h.pid);
  if (h.local_rank) {
    m.entry.local_rank = static_cast<int>(*h.local_rank);
    m.entry.local_size = static_cast<int>(*h.local_size);
    m.gave_local = true;
  }
  members_[r] = std::move(m);
  ++joined_;
  Verdict v;
  v.kind = Verdict::Kind::accept;
  v.rank = static_cast<int>(r);
  // Rank 0's own proof, for the process to check: the one that holds the secret answers it.
  v.reply = handshake::frame_of(FrameType::accepted, handshake::sealed(settings_.secret, handshake::Purpose::rank0,
                                                                       h.nonce, w.nonce, Json{{"rank", r}}));
  return v;
}

Verdict RendezvousTable::received(ConnectionId id, const Frame& frame) {
  const auto it = waiting_.find(id);
  if (it == waiting_.end()) return {};  // taken already, or never opened: one frame per connection
  const Waiting w = it->second;
  waiting_.erase(it);
  const std::optional<Hello> hello = read_hello(frame);
  if (!hello) return {};  // not a distbench process of this version: dropped without a word, as a port scanner is
  // Who it is, first: nothing it claims counts before.
  if (std::optional<Verdict> refused = refuse_stranger(w, *hello)) return std::move(*refused);
  if (std::optional<Verdict> refused = refuse_launch(w, *hello)) return std::move(*refused);
  return accept(id, w, *hello);
}

std::string RendezvousTable::missing_text(double timeout_s) const {
  std::vector<bool> present(members_.size());
  present[0] = true;
  for (std::size_t r = 1; r < members_.size(); ++r) present[r] = members_[r].has_value();
  std::string text = fmt::format("{} did not join rank 0 at {} within {:g} s (-T/--timeout); {} of {} did",
                                 missing_ranks(present), settings_.endpoint, timeout_s, joined_, settings_.world_size);
  if (turned_away_count_ > 0) {
    text += fmt::format("; turned away: {}", fmt::join(turned_away_, "; "));
    if (turned_away_count_ > turned_away_.size()) {
      text += fmt::format(" (and {} more)", turned_away_count_ - turned_away_.size());
    }
  }
  return text;
}

std::optional<std::vector<RankEntry>> RendezvousTable::table() const {
  if (!complete()) return std::nullopt;
  std::vector<RankEntry> out(members_.size());
  out[0] = settings_.self;
  bool all_local = settings_.self_gave_local;
  for (std::size_t r = 1; r < members_.size(); ++r) {
    out[r] = members_[r]->entry;
    all_local = all_local && members_[r]->gave_local;
  }
  if (!all_local) number_local_ranks(out);
  return out;
}

std::vector<std::byte> RendezvousTable::welcome_frame(const std::vector<RankEntry>& table,
                                                      const handshake::Nonce& job) {
  Json ranks = Json::array();
  for (const auto& e : table) ranks.push_back(entry_json(e));
  return handshake::json_frame(FrameType::welcome, {{"job", handshake::hex(job)}, {"ranks", ranks}});
}

std::vector<std::byte> RendezvousTable::reject_frame(ExitCode code, const std::string& reason) {
  return handshake::json_frame(FrameType::reject, {{"code", static_cast<int>(code)}, {"reason", reason}});
}

}  // namespace distbench::connectors
