// What the env:// handshakes are made of: nonces, keys, proofs and the JSON bodies of handshake frames.
//
// Every connection a process accepts during the rendezvous starts the same way (rank 0's from the other ranks, a
// rank's from the higher ranks):
//   1. the accepting side sends a challenge: {"protocol", "nonce": its fresh nonce, "secret": whether it has one};
//   2. the connecting side sends its hello (to rank 0) or peer_hello (to another rank): a proof, then a JSON body
//      that holds its own fresh nonce;
//   3. the accepting side checks the proof and answers `accepted`: its own proof, then a JSON body.
// A proof is HMAC-SHA256(key, purpose || challenger's nonce || responder's nonce || body): it shows that the sender
// holds the key, for this connection only (both nonces are fresh), for this purpose only (a proof made for one kind
// of message is no proof for another) and for this body only. The key is the job's secret (rank 0's connections) or
// a key for the job's peer connections derived from it (peer_key); without a secret a proof is 32 zero bytes and
// proves nothing, and the peers' key is the job's random nonce, which rank 0 sends in its table.
#pragma once

#include "connectors/frame.hpp"
#include "connectors/hmac_sha256.hpp"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::connectors::handshake {

// The handshake's version, in every challenge and hello: a process of another version is told apart at once.
inline constexpr std::string_view kProtocol = "distbench-env/2";
inline constexpr std::size_t kNonceBytes = 32;
inline constexpr std::size_t kProofBytes = 32;

using Nonce = std::array<std::uint8_t, kNonceBytes>;
using Key = std::vector<std::uint8_t>;

// A nonce from the system's random source (getrandom); throws failure when there is none.
Nonce fresh_nonce();
std::string hex(std::span<const std::uint8_t> bytes);
std::optional<Nonce> nonce_from_hex(std::string_view text);

// What a proof is for; each purpose is a label of its own in what is signed.
enum class Purpose { hello, rank0, peer_hello, peer_accepted };

Digest prove(const Key& key, Purpose purpose, const Nonce& challenger, const Nonce& responder, std::string_view body);

// The key the job's peer connections prove themselves with: derived from the secret and the job's nonce, or the
// job's nonce itself when there is no secret.
Key peer_key(const std::optional<Key>& secret, const Nonce& job);

// A handshake payload with a proof: the proof (zeros without a key), then the body's text.
std::vector<std::byte> sealed(const std::optional<Key>& key, Purpose purpose, const Nonce& challenger,
                              const Nonce& responder, const nlohmann::json& body);
struct Unsealed {
  std::string body;  // the JSON text after the proof
  Digest proof;      // as sent
};
// The proof and the body of a payload; std::nullopt when it is shorter than a proof.
std::optional<Unsealed> unseal(std::span<const std::byte> payload);
// Whether `u` holds the proof `key` makes for it.
bool proven(const Unsealed& u, const Key& key, Purpose purpose, const Nonce& challenger, const Nonce& responder);

// A whole frame of `type` whose payload is `body`'s JSON text (or `payload` as it is).
std::vector<std::byte> json_frame(FrameType type, const nlohmann::json& body);
std::vector<std::byte> frame_of(FrameType type, std::span<const std::byte> payload);

// JSON from bytes: an object, or std::nullopt for anything else (not JSON, or not an object).
std::optional<nlohmann::json> json_object(std::string_view text);
// An integer field within [low, high], a string field of at most `max_size` bytes; std::nullopt when absent, of
// another type or out of bounds.
std::optional<std::int64_t> int_field(const nlohmann::json& j, const char* key, std::int64_t low, std::int64_t high);
std::optional<std::string> text_field(const nlohmann::json& j, const char* key, std::size_t max_size);
std::optional<Nonce> nonce_field(const nlohmann::json& j, const char* key);

// The challenge an accepting side sends first.
std::vector<std::byte> challenge_frame(const Nonce& nonce, bool has_secret);
struct Challenge {
  Nonce nonce;
  bool has_secret = false;
};
// A challenge frame's contents; std::nullopt when it is not one of this protocol (`why` says what it is instead).
std::optional<Challenge> read_challenge(const Frame& frame, std::string& why);

// The exit codes a peer's word (an abort, a reject) may end a process with: those README.md documents (1-7, and
// 130/143 for a job interrupted by a signal). Anything else becomes 1, so that no process, however it speaks,
// can choose another.
int documented_exit_code(std::int64_t code);

}  // namespace distbench::connectors::handshake
