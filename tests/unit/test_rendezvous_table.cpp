// Rank 0's judgement of the env:// rendezvous (connectors/rendezvous_table), without sockets: hellos as a process
// sends them, a stranger's (without the secret, with a wrong one, claiming a rank outside the world, sending an
// abort), and the table only once every rank is in.
#include "connectors/rendezvous_table.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace distbench::connectors {
namespace {

using Json = nlohmann::json;
namespace hs = handshake;

hs::Nonce nonce_of(std::uint8_t seed) {
  hs::Nonce n{};
  for (std::size_t i = 0; i < n.size(); ++i) n[i] = static_cast<std::uint8_t>(seed * 31 + i);
  return n;
}

hs::Key key_of(const std::string& text) { return {text.begin(), text.end()}; }

const hs::Key kSecret = key_of("the job's secret, 32 bytes long.");

// The one frame in `bytes`.
Frame frame_in(const std::vector<std::byte>& bytes) {
  FrameReader reader(kMaxTableBytes);
  reader.feed(bytes);
  auto f = reader.next();
  EXPECT_TRUE(f) << reader.error();
  return f ? *f : Frame{};
}

struct Hello {
  int rank = 1;
  int world = 3;
  std::string run_id;
  std::optional<hs::Key> key;  // what the process proves with (none: it has no secret)
  hs::Nonce mine = nonce_of(200);
};

Hello claim(int rank, int world = 3, std::string run_id = "", std::optional<hs::Key> key = std::nullopt,
            hs::Nonce mine = nonce_of(200)) {
  return Hello{rank, world, std::move(run_id), std::move(key), mine};
}

Frame hello_frame(const Hello& h, const hs::Nonce& challenge) {
  const Json body = {
      {"protocol", hs::kProtocol},     {"rank", h.rank},      {"world_size", h.world}, {"host", "node1"},
      {"port", 40000 + h.rank % 1000}, {"pid", 100 + h.rank}, {"run_id", h.run_id},    {"nonce", hs::hex(h.mine)},
      {"secret", h.key.has_value()}};
  return frame_in(hs::frame_of(FrameType::hello, hs::sealed(h.key, hs::Purpose::hello, challenge, h.mine, body)));
}

TableSettings settings(int world, std::optional<hs::Key> secret = std::nullopt) {
  TableSettings s;
  s.world_size = world;
  s.secret = std::move(secret);
  s.self = {"node0", "", 0, 0, 1, 99};
  s.endpoint = "127.0.0.1:29500 (MASTER_PORT)";
  return s;
}

// Opens connection `id` and sends `h` on it, as the process would after reading the challenge.
Verdict knock(RendezvousTable& t, ConnectionId id, Hello h) {
  const hs::Nonce challenge = nonce_of(static_cast<std::uint8_t>(id));
  const Frame c = frame_in(t.opened(id, "10.0.0.9", "10.0.0.9:41234", challenge));
  std::string why;
  const auto read = hs::read_challenge(c, why);
  EXPECT_TRUE(read) << why;
  return t.received(id, hello_frame(h, challenge));
}

std::string reject_reason(const Verdict& v) {
  const Frame f = frame_in(v.reply);
  EXPECT_EQ(f.header.type, FrameType::reject);
  const auto j = hs::json_object({reinterpret_cast<const char*>(f.payload.data()), f.payload.size()});
  return j ? hs::text_field(*j, "reason", 1 << 20).value_or("") : "";
}

TEST(RendezvousTable, EveryRankInMakesTheTable) {
  RendezvousTable t(settings(3));
  EXPECT_FALSE(t.table());
  EXPECT_EQ(knock(t, 7, claim(2)).kind, Verdict::Kind::accept);
  EXPECT_FALSE(t.complete());
  EXPECT_FALSE(t.table()) << "no table before every rank is in";
  const Verdict v = knock(t, 8, claim(1));
  EXPECT_EQ(v.kind, Verdict::Kind::accept);
  EXPECT_EQ(v.rank, 1);
  EXPECT_EQ(frame_in(v.reply).header.type, FrameType::accepted);
  ASSERT_TRUE(t.complete());
  EXPECT_EQ(t.holder(1), 8u);
  EXPECT_EQ(t.holder(2), 7u);
  const auto table = t.table();
  ASSERT_TRUE(table);
  ASSERT_EQ(table->size(), 3u);
  EXPECT_EQ((*table)[0].host, "node0");
  EXPECT_EQ((*table)[1].address, "10.0.0.9");
  EXPECT_EQ((*table)[2].port, 40002);
  const Frame w = frame_in(RendezvousTable::welcome_frame(*table, nonce_of(5)));
  EXPECT_EQ(w.header.type, FrameType::welcome);
}

TEST(RendezvousTable, ARankOutsideTheWorldIsTurnedAwayAndTheJobGoesOn) {
  RendezvousTable t(settings(3));
  for (int rank : {3, 5, 1 << 19}) {
    const Verdict v = knock(t, static_cast<ConnectionId>(rank), claim(rank));
    EXPECT_EQ(v.kind, Verdict::Kind::refuse) << rank;
    EXPECT_NE(reject_reason(v).find("outside WORLD_SIZE=3"), std::string::npos);
  }
  EXPECT_EQ(t.joined(), 1);
  EXPECT_FALSE(t.holder(3));
  EXPECT_EQ(knock(t, 1, claim(1)).kind, Verdict::Kind::accept);
  EXPECT_EQ(knock(t, 2, claim(2)).kind, Verdict::Kind::accept);
  EXPECT_TRUE(t.complete());
}

TEST(RendezvousTable, WithASecretOnlyAProvenHelloIsTaken) {
  RendezvousTable t(settings(3, kSecret));
  Verdict v = knock(t, 1, claim(1, 3, "", std::nullopt));
  EXPECT_EQ(v.kind, Verdict::Kind::refuse);
  EXPECT_NE(reject_reason(v).find("requires the job's secret and this process has none"), std::string::npos);
  v = knock(t, 2, claim(1, 3, "", key_of("another secret, also 32 bytes...")));
  EXPECT_EQ(v.kind, Verdict::Kind::refuse);
  EXPECT_NE(reject_reason(v).find("job secret is not the one of rank 0"), std::string::npos);
  // A stranger claiming a taken rank, or another world, without the secret cannot end the job.
  EXPECT_EQ(knock(t, 3, claim(1, 7, "", key_of("guessing........................"))).kind, Verdict::Kind::refuse);
  EXPECT_EQ(t.joined(), 1);
  const hs::Nonce mine = nonce_of(77);
  v = knock(t, 4, claim(1, 3, "", kSecret, mine));
  ASSERT_EQ(v.kind, Verdict::Kind::accept);
  // Rank 0 proves itself back: its answer carries the proof the secret makes for both nonces.
  const Frame accepted = frame_in(v.reply);
  const auto u = hs::unseal(accepted.payload);
  ASSERT_TRUE(u);
  EXPECT_TRUE(hs::proven(*u, kSecret, hs::Purpose::rank0, mine, nonce_of(4)));
  EXPECT_FALSE(hs::proven(*u, key_of("another secret, also 32 bytes..."), hs::Purpose::rank0, mine, nonce_of(4)));
  EXPECT_EQ(knock(t, 5, claim(1, 7, "", key_of("still guessing.................."))).kind, Verdict::Kind::refuse);
  const std::string missing = t.missing_text(30);
  EXPECT_NE(missing.find("rank 2 did not join rank 0 at 127.0.0.1:29500 (MASTER_PORT) within 30 s"), std::string::npos)
      << missing;
  EXPECT_NE(missing.find("; turned away: a connection from 10.0.0.9:41234 claiming rank 1 without the job's secret; a "
                         "connection from 10.0.0.9:41234 claiming rank 1 with a wrong job secret; "),
            std::string::npos)
      << missing;
  EXPECT_NE(missing.find("(and 1 more)"), std::string::npos) << missing;
}

TEST(RendezvousTable, AProofIsForItsOwnChallengeAndBody) {
  RendezvousTable t(settings(2, kSecret));
  // A hello proven for another connection's challenge (a replay) is no proof here.
  const Hello h = claim(1, 2, "", kSecret);
  t.opened(1, "10.0.0.9", "10.0.0.9:1", nonce_of(1));
  EXPECT_EQ(t.received(1, hello_frame(h, nonce_of(2))).kind, Verdict::Kind::refuse);
  // A body changed after it was proven: no proof either.
  t.opened(2, "10.0.0.9", "10.0.0.9:2", nonce_of(2));
  Frame f = hello_frame(h, nonce_of(2));
  const auto at = std::string(reinterpret_cast<const char*>(f.payload.data()), f.payload.size()).find("node1");
  ASSERT_NE(at, std::string::npos);
  f.payload[at] = std::byte{'m'};
  EXPECT_EQ(t.received(2, f).kind, Verdict::Kind::refuse);
  EXPECT_EQ(t.joined(), 1);
}

TEST(RendezvousTable, ASecretOnOneSideOnlyIsTurnedAway) {
  RendezvousTable t(settings(2));
  const Verdict v = knock(t, 1, claim(1, 2, "", kSecret));
  EXPECT_EQ(v.kind, Verdict::Kind::refuse);
  EXPECT_NE(reject_reason(v).find("this process has a job secret and rank 0"), std::string::npos);
}

TEST(RendezvousTable, ProvenClashesEndTheJob) {
  RendezvousTable t(settings(3, kSecret));
  ASSERT_EQ(knock(t, 1, claim(1, 3, "", kSecret)).kind, Verdict::Kind::accept);
  Verdict v = knock(t, 2, claim(1, 3, "", kSecret));
  EXPECT_EQ(v.kind, Verdict::Kind::end_job);
  EXPECT_EQ(v.code, ExitCode::usage);
  EXPECT_NE(v.reason.find("RANK=1 is claimed by two processes, on node1 (pid 101) and on node1 (pid 101)"),
            std::string::npos)
      << v.reason;
  v = knock(t, 3, claim(2, 4, "", kSecret));
  EXPECT_EQ(v.kind, Verdict::Kind::end_job);
  EXPECT_NE(v.reason.find("has WORLD_SIZE=4, rank 0 has WORLD_SIZE=3"), std::string::npos) << v.reason;
  v = knock(t, 4, claim(0, 3, "", kSecret));
  EXPECT_EQ(v.kind, Verdict::Kind::end_job);
  EXPECT_NE(v.reason.find("rank 0 itself"), std::string::npos) << v.reason;
}

TEST(RendezvousTable, AnotherRunIsTurnedAway) {
  RendezvousTable t(settings(2));
  const Verdict v = knock(t, 1, claim(1, 2, "other-run"));
  EXPECT_EQ(v.kind, Verdict::Kind::refuse);
  EXPECT_NE(reject_reason(v).find("serves run '', this process belongs to run 'other-run'"), std::string::npos);
}

TEST(RendezvousTable, AnythingButOneHelloIsDroppedWithoutAWord) {
  RendezvousTable t(settings(2));
  t.opened(1, "10.0.0.9", "10.0.0.9:1", nonce_of(1));
  // An abort, a welcome, data: not a hello.
  for (auto type : {FrameType::abort, FrameType::welcome, FrameType::data}) {
    t.opened(1, "10.0.0.9", "10.0.0.9:1", nonce_of(1));
    const Verdict v = t.received(1, frame_in(hs::json_frame(type, {{"code", 6}, {"reason", "stranger"}})));
    EXPECT_EQ(v.kind, Verdict::Kind::refuse);
    EXPECT_TRUE(v.reply.empty());
  }
  // A hello on a connection never opened, and a second frame on one that was.
  EXPECT_EQ(t.received(9, hello_frame(claim(1, 2), nonce_of(9))).kind, Verdict::Kind::refuse);
  t.opened(2, "10.0.0.9", "10.0.0.9:2", nonce_of(2));
  EXPECT_EQ(t.received(2, frame_in(hs::json_frame(FrameType::hello, {{"not", "a hello"}}))).kind,
            Verdict::Kind::refuse);
  EXPECT_EQ(t.received(2, hello_frame(claim(1, 2), nonce_of(2))).kind, Verdict::Kind::refuse);
  EXPECT_EQ(t.joined(), 1);
  EXPECT_EQ(t.waiting(), 0u);
}

TEST(RendezvousTable, AWorldOfOneIsCompleteAtOnce) {
  RendezvousTable t(settings(1));
  EXPECT_TRUE(t.complete());
  ASSERT_TRUE(t.table());
  EXPECT_EQ(t.table()->size(), 1u);
  EXPECT_EQ(knock(t, 1, claim(1, 1)).kind, Verdict::Kind::refuse);
}

}  // namespace
}  // namespace distbench::connectors
