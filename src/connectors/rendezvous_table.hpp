// Rank 0's judgement of the env:// rendezvous, without sockets: connections are numbers, frames come in as events,
// and each event's answer says what to send and whether to take the connection as a rank, drop it, or end the job.
// rendezvous.cpp drives it with real connections; tests/fuzz/fuzz_rendezvous.cpp with any frames in any order.
//
// What it guarantees, whatever arrives (the fuzz target's invariants):
// - a rank is taken only within 1 .. WORLD_SIZE-1 (rank 0's own world), once; nothing is indexed outside the table;
// - with a secret, only a connection whose hello carries the proof the secret makes for this connection's challenge
//   is taken (handshake.hpp); a stranger's hello is turned away and the job goes on;
// - the table of all ranks exists only once every rank is taken.
// A launch that cannot work ends the job at once, as before: two proven processes claiming one rank, or a proven
// process with another WORLD_SIZE (without a secret every process counts as proven: anyone may join).
#pragma once

#include "connectors/admission.hpp"
#include "connectors/handshake.hpp"
#include "core/error.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::connectors {

struct RankEntry {
  std::string host;
  std::string address;  // where the others reach it ("" for rank 0: they reach it at MASTER_ADDR)
  int port = 0;         // its listener (0: nobody connects to it)
  int local_rank = 0;
  int local_size = 1;
  int pid = 0;
};

// Ranks on the same host, by host name: each rank's local rank and local size, in rank order.
void number_local_ranks(std::vector<RankEntry>& ranks);
// The ranks not present, for messages: "rank 3", "ranks 2, 5", "40 ranks (3 .. 97)".
std::string missing_ranks(const std::vector<bool>& present);

struct TableSettings {
  int world_size = 1;
  std::string run_id;                    // TORCHELASTIC_RUN_ID ("" when not set)
  std::optional<handshake::Key> secret;  // the job's secret; none: anyone may join
  RankEntry self;                        // rank 0's own entry
  bool self_gave_local = false;          // LOCAL_RANK and LOCAL_WORLD_SIZE were set for rank 0
  std::string endpoint;                  // "node0:29500 (MASTER_PORT)", for messages
};

// What to do with a connection, after its frame.
struct Verdict {
  enum class Kind { accept, refuse, end_job };
  Kind kind = Kind::refuse;
  std::vector<std::byte> reply;     // to send to this connection first (empty: nothing)
  int rank = -1;                    // accept: the rank the connection now holds
  ExitCode code = ExitCode::usage;  // end_job: the exit code of every process
  std::string reason;               // end_job: the error's words; refuse: why (empty: not a distbench process)
};

class RendezvousTable {
 public:
  explicit RendezvousTable(TableSettings settings);

  // A connection from `address` (`endpoint`: with its port) to challenge with `nonce`: the challenge frame to send.
  std::vector<std::byte> opened(ConnectionId id, const std::string& address, const std::string& endpoint,
                                const handshake::Nonce& nonce);
  // The one frame a connection may send before it is taken: its hello. Any other frame, or a second one, or one on
  // a connection never opened: refused without a word.
  Verdict received(ConnectionId id, const Frame& frame);
  // The connection ended or was dropped before it was taken.
  void closed(ConnectionId id);

  int world_size() const { return settings_.world_size; }
  int joined() const { return joined_; }  // ranks taken, rank 0 included
  bool complete() const { return joined_ == settings_.world_size; }
  // The connection that holds `rank` (1 .. WORLD_SIZE-1), if it is taken.
  std::optional<ConnectionId> holder(int rank) const;
  std::size_t waiting() const { return waiting_.size(); }

  // Who is missing at the deadline, and who was turned away claiming a rank: "rank 2 did not join rank 0 at
  // node0:29500 (MASTER_PORT) within 30 s (-T/--timeout); 2 of 3 did; turned away: a connection from
  // 10.0.0.9:41234 claiming rank 2 (its job secret differs from rank 0's)".
  std::string missing_text(double timeout_s) const;

  // The table of every rank, in rank order; std::nullopt until complete.
  std::optional<std::vector<RankEntry>> table() const;
  // The welcome: the table and the job's nonce (from which the ranks' peer connections derive their key).
  static std::vector<std::byte> welcome_frame(const std::vector<RankEntry>& table, const handshake::Nonce& job);
  // Tells a rank, or a process turned away, why the job cannot start (or why it is not let in).
  static std::vector<std::byte> reject_frame(ExitCode code, const std::string& reason);

 private:
  struct Waiting {
    std::string address;
    std::string endpoint;
    handshake::Nonce nonce{};
  };
  struct Member {
    ConnectionId id = 0;
    RankEntry entry;
    bool gave_local = false;
  };
  struct Hello;
  // The hello's claims, each within its bounds; std::nullopt for a frame that is no hello of this version.
  static std::optional<Hello> read_hello(const Frame& frame);
  // A process without the job's secret, or with another (or with one when rank 0 has none): turned away.
  std::optional<Verdict> refuse_stranger(const Waiting& w, const Hello& h);
  // A process of this job launched wrong: another run, another WORLD_SIZE, a RANK outside it or taken already.
  std::optional<Verdict> refuse_launch(const Waiting& w, const Hello& h);
  // Takes the connection as the rank it claims, and answers with rank 0's own proof.
  Verdict accept(ConnectionId id, const Waiting& w, const Hello& h);
  // Turns a connection away: `note` for rank 0's line at the deadline, `why` for the process.
  Verdict refuse(const Waiting& w, std::int64_t rank, std::string_view note, std::string why);
  Verdict end_job(std::string reason) const;

  TableSettings settings_;
  std::map<ConnectionId, Waiting> waiting_;
  std::vector<std::optional<Member>> members_;  // by rank; [0] stays empty (rank 0 itself)
  int joined_ = 1;
  std::vector<std::string> turned_away_;  // the first few, for missing_text
  std::size_t turned_away_count_ = 0;
};

}  // namespace distbench::connectors
