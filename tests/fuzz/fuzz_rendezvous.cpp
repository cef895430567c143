// Fuzz target: rank 0's judgement of the env:// rendezvous (connectors/rendezvous_table) driven by a program the
// input spells: a world of any size, with or without a secret, and connections opened, closed and sent frames in any
// order — hellos well formed or not, proven with the right secret, a wrong one or none, claiming any rank and world,
// and raw frames of any type and bytes. After every step it checks what the table promises:
// - a connection is taken only for a rank in 1 .. WORLD_SIZE-1, one connection per rank (ASan checks the indexing);
// - with a secret, only a connection whose last hello this harness proved with that secret, for that connection's
//   challenge, is taken; nor can an unproven hello end the job;
// - the table exists exactly when every rank is taken, and holds WORLD_SIZE entries;
// - every reply is one whole frame of the kind its verdict says, and rank 0's answer to a proven hello proves the
//   secret back.
#include "connectors/rendezvous_table.hpp"

#include "fuzz_support.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace {

using namespace distbench;
using namespace distbench::connectors;
namespace hs = distbench::connectors::handshake;
using Json = nlohmann::json;

// Reads the program: bytes one at a time, zeros once it runs out.
class Program {
 public:
  Program(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool done() const { return at_ >= size_; }
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  std::uint32_t word() {
    std::uint32_t w = 0;
    for (int i = 0; i < 4; ++i) w = (w << 8) | byte();
    return w;
  }
  std::vector<std::byte> bytes(std::size_t n) {
    std::vector<std::byte> out;
    for (std::size_t i = 0; i < n && !done(); ++i) out.push_back(static_cast<std::byte>(byte()));
    return out;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

hs::Nonce nonce_from(Program& p) {
  hs::Nonce n{};
  n[0] = p.byte();
  n[1] = p.byte();
  return n;
}

Frame whole_frame(const std::vector<std::byte>& bytes) {
  FrameReader reader(kMaxTableBytes);
  reader.feed(bytes);
  auto f = reader.next();
  FUZZ_EXPECT(f.has_value());
  FUZZ_EXPECT(reader.take_buffered().empty());
  return *f;
}

const hs::Key kSecret = {'f', 'u', 'z', 'z', ' ', 's', 'e', 'c', 'r', 'e', 't', ' ', 'o', 'f', ' ', '3',
                         '2', ' ', 'b', 'y', 't', 'e', 's', ' ', 'a', 't', ' ', 'l', 'e', 'a', 's', 't'};
const hs::Key kWrongKey = {'n', 'o', 't', ' ', 't', 'h', 'e', ' ', 's', 'e', 'c', 'r', 'e', 't'};

struct Harness {
  RendezvousTable table;
  bool has_secret;
  int world;
  std::map<ConnectionId, hs::Nonce> challenges;  // what the table challenged each open connection with
  std::set<ConnectionId> taken;
  std::map<int, ConnectionId> holders;

  // Checks a verdict on connection `id`; `proven`: its frame was a hello this harness proved with the secret for
  // the connection's challenge (always true without a secret, for a well-formed hello); `mine`: its nonce.
  void check(ConnectionId id, const Verdict& v, bool proven, const std::optional<hs::Nonce>& mine) {
    switch (v.kind) {
      case Verdict::Kind::accept: {
        FUZZ_EXPECT(v.rank >= 1 && v.rank < world);
        FUZZ_EXPECT(!holders.count(v.rank));
        FUZZ_EXPECT(!taken.count(id));
        FUZZ_EXPECT(proven);
        FUZZ_EXPECT(table.holder(v.rank) == id);
        const Frame f = whole_frame(v.reply);
        FUZZ_EXPECT(f.header.type == FrameType::accepted);
        if (has_secret) {
          const auto u = hs::unseal(f.payload);
          FUZZ_EXPECT(u && mine && hs::proven(*u, kSecret, hs::Purpose::rank0, *mine, challenges.at(id)));
        }
        holders[v.rank] = id;
        taken.insert(id);
        break;
      }
      case Verdict::Kind::refuse:
        if (!v.reply.empty()) FUZZ_EXPECT(whole_frame(v.reply).header.type == FrameType::reject);
        break;
      case Verdict::Kind::end_job:
        FUZZ_EXPECT(proven);  // a stranger cannot end a job that has a secret
        FUZZ_EXPECT(v.code == ExitCode::usage);
        FUZZ_EXPECT(!v.reason.empty());
        FUZZ_EXPECT(whole_frame(v.reply).header.type == FrameType::reject);
        break;
    }
    challenges.erase(id);
  }

  void check_table() const {
    FUZZ_EXPECT(table.joined() == 1 + static_cast<int>(holders.size()));
    FUZZ_EXPECT(table.complete() == (table.joined() == world));
    const auto t = table.table();
    FUZZ_EXPECT(t.has_value() == table.complete());
    if (t) {
      FUZZ_EXPECT(t->size() == static_cast<std::size_t>(world));
      for (const RankEntry& e : *t) FUZZ_EXPECT(e.local_rank >= 0 && e.local_rank < e.local_size);
      FUZZ_EXPECT(whole_frame(RendezvousTable::welcome_frame(*t, hs::Nonce{})).header.type == FrameType::welcome);
    } else {
      FUZZ_EXPECT(!table.missing_text(1).empty());
    }
    for (int r = -2; r <= world + 2; r = (r == 8 && world > 16) ? world - 3 : r + 1) {
      const auto h = table.holder(r);
      FUZZ_EXPECT(h.has_value() == (holders.count(r) > 0));
    }
  }
};

TableSettings settings_for(int world, bool secret) {
  TableSettings s;
  s.world_size = world;
  if (secret) s.secret = kSecret;
  s.self = {"node0", "", 0, 0, 1, 1};
  s.endpoint = "node0:29500 (MASTER_PORT)";
  return s;
}

// Runs the program's steps against the table, checking after each; returns when the program ends or the job does.
void run(Program& p, Harness& h) {
  const int world = h.world;
  const bool has_secret = h.has_secret;
  for (int step = 0; step < 512 && !p.done(); ++step) {
    const std::uint8_t op = p.byte();
    const ConnectionId id = 1 + p.byte() % 16;
    switch (op % 5) {
      case 0: {  // open (a connection's number is never reused once taken, as the door numbers them)
        const hs::Nonce n = nonce_from(p);
        if (h.taken.count(id)) break;
        const Frame c = whole_frame(h.table.opened(id, "10.0.0.9", "10.0.0.9:1", n));
        std::string why;
        const auto read = hs::read_challenge(c, why);
        FUZZ_EXPECT(read && read->nonce == n && read->has_secret == has_secret);
        h.challenges[id] = n;
        break;
      }
      case 1:  // close
        h.table.closed(id);
        h.challenges.erase(id);
        break;
      case 2: {  // a hello as a process writes it, with any claims and any proof
        const std::uint8_t how = p.byte();
        int rank = static_cast<int>(p.byte() % (world + 3));
        if (how & 0x01) rank = static_cast<int>(p.word() & 0x7FFFFFFF);
        const int claimed_world = (how & 0x02) ? 1 + static_cast<int>(p.word() % (1 << 20)) : world;
        const std::string run_id = (how & 0x04) ? "another run" : "";
        std::optional<hs::Key> key;
        if (how & 0x08) key = (how & 0x10) ? kWrongKey : kSecret;
        const hs::Nonce mine = nonce_from(p);
        const bool challenged = h.challenges.count(id) > 0;
        const hs::Nonce challenge = challenged ? h.challenges.at(id) : hs::Nonce{};
        // (how & 0x20): proven for another challenge, as a replay would be
        const hs::Nonce proven_for = (how & 0x20) ? nonce_from(p) : challenge;
        const Json body = {{"protocol", hs::kProtocol},
                           {"rank", rank},
                           {"world_size", claimed_world},
                           {"host", (how & 0x40) ? std::string(300, 'h') : std::string("node1")},
                           {"port", 1},
                           {"pid", 2},
                           {"run_id", run_id},
                           {"nonce", hs::hex(mine)},
                           {"secret", key.has_value()}};
        const auto payload = hs::sealed(key, hs::Purpose::hello, proven_for, mine, body);
        const bool proven = !has_secret || (key == kSecret && proven_for == challenge && challenged);
        const Verdict v = h.table.received(id, whole_frame(hs::frame_of(FrameType::hello, payload)));
        h.check(id, v, proven, mine);
        if (v.kind == Verdict::Kind::end_job) return;  // the job ends: rank 0 throws
        break;
      }
      case 3: {  // a raw frame: any type, any payload
        const auto type = static_cast<FrameType>(1 + p.byte() % 9);
        const auto payload = p.bytes(p.byte());
        const Verdict v = h.table.received(id, whole_frame(hs::frame_of(type, payload)));
        // Without a secret a raw hello may be well formed and taken; with one, it cannot prove anything.
        h.check(id, v, !has_secret, std::nullopt);
        if (v.kind == Verdict::Kind::end_job) return;
        break;
      }
      case 4: {  // raw bytes through a frame reader, as the wire delivers them
        FrameReader reader(kMaxHandshakeBytes);
        reader.feed(p.bytes(p.byte()));
        while (auto f = reader.next()) {
          const Verdict v = h.table.received(id, *f);
          h.check(id, v, !has_secret, std::nullopt);
          if (v.kind == Verdict::Kind::end_job) return;
        }
        break;
      }
    }
    h.check_table();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Program p(data, size);
  const std::uint8_t head = p.byte();
  const bool has_secret = (head & 0x80) != 0;
  // Mostly small worlds (the table completes); sometimes one of thousands of ranks.
  const int world = (head & 0x40) != 0 ? 1 + static_cast<int>(p.word() % 5000) : 1 + (head & 0x07);
  Harness h{RendezvousTable(settings_for(world, has_secret)), has_secret, world, {}, {}, {}};
  h.check_table();
  // The table throws nothing: an exception escaping it is a finding too (libFuzzer reports the abort).
  run(p, h);
  return 0;
}
