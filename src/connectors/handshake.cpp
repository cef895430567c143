#include "connectors/handshake.hpp"

#include "core/error.hpp"

#include <fmt/format.h>
#include <sys/random.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>

namespace distbench::connectors::handshake {
namespace {

using Json = nlohmann::json;

std::string_view label(Purpose purpose) {
  switch (purpose) {
    case Purpose::hello: return "distbench-env/2 hello to rank 0";
    case Purpose::rank0: return "distbench-env/2 rank 0 accepted";
    case Purpose::peer_hello: return "distbench-env/2 hello to a peer";
    case Purpose::peer_accepted: return "distbench-env/2 peer accepted";
  }
  return "";
}

constexpr std::string_view kPeerKeyLabel = "distbench-env/2 peer key";

}  // namespace

Nonce fresh_nonce() {
  Nonce n{};
  std::size_t got = 0;
  while (got < n.size()) {
    const ssize_t r = getrandom(n.data() + got, n.size() - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw failure(fmt::format("cannot read the system's random source (getrandom): {}", std::strerror(errno)));
    }
    got += static_cast<std::size_t>(r);
  }
  return n;
}

std::string hex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 0xF];
  }
  return out;
}

std::optional<Nonce> nonce_from_hex(std::string_view text) {
  if (text.size() != 2 * kNonceBytes) return std::nullopt;
  const auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  Nonce n{};
  for (std::size_t i = 0; i < kNonceBytes; ++i) {
    const int hi = digit(text[2 * i]);
    const int lo = digit(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    n[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return n;
}

Digest prove(const Key& key, Purpose purpose, const Nonce& challenger, const Nonce& responder, std::string_view body) {
  HmacSha256 mac(key);
  mac.update(label(purpose));
  const std::uint8_t separator = 0;
  mac.update(std::span(&separator, 1));
  mac.update(challenger);
  mac.update(responder);
  mac.update(body);
  return mac.finish();
}

Key peer_key(const std::optional<Key>& secret, const Nonce& job) {
  if (!secret) return Key(job.begin(), job.end());
  HmacSha256 mac(*secret);
  mac.update(kPeerKeyLabel);
  mac.update(job);
  const Digest d = mac.finish();
  return Key(d.begin(), d.end());
}

std::vector<std::byte> sealed(const std::optional<Key>& key, Purpose purpose, const Nonce& challenger,
                              const Nonce& responder, const Json& body) {
  const std::string text = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  const Digest proof = key ? prove(*key, purpose, challenger, responder, text) : Digest{};
  std::vector<std::byte> out(kProofBytes + text.size());
  std::memcpy(out.data(), proof.data(), kProofBytes);
  std::memcpy(out.data() + kProofBytes, text.data(), text.size());
  return out;
}

std::optional<Unsealed> unseal(std::span<const std::byte> payload) {
  if (payload.size() < kProofBytes) return std::nullopt;
  Unsealed u;
  std::memcpy(u.proof.data(), payload.data(), kProofBytes);
  u.body.assign(reinterpret_cast<const char*>(payload.data()) + kProofBytes, payload.size() - kProofBytes);
  return u;
}

bool proven(const Unsealed& u, const Key& key, Purpose purpose, const Nonce& challenger, const Nonce& responder) {
  return equal_in_constant_time(prove(key, purpose, challenger, responder, u.body), u.proof);
}

std::vector<std::byte> frame_of(FrameType type, std::span<const std::byte> payload) {
  return encode_frame({type, Channel::collective, 0, 0}, payload);
}

std::vector<std::byte> json_frame(FrameType type, const Json& body) {
  const std::string text = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  return frame_of(type, std::as_bytes(std::span(text.data(), text.size())));
}

std::optional<Json> json_object(std::string_view text) {
  Json j = Json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

std::optional<std::int64_t> int_field(const Json& j, const char* key, std::int64_t low, std::int64_t high) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  // An unsigned number above INT64_MAX reads as negative through get<int64_t>: refuse it first.
  if (it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  const auto v = it->get<std::int64_t>();
  if (v < low || v > high) return std::nullopt;
  return v;
}

std::optional<std::string> text_field(const Json& j, const char* key, std::size_t max_size) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  const auto& s = it->get_ref<const std::string&>();
  if (s.size() > max_size) return std::nullopt;
  return s;
}

std::optional<Nonce> nonce_field(const Json& j, const char* key) {
  const auto text = text_field(j, key, 2 * kNonceBytes);
  if (!text) return std::nullopt;
  return nonce_from_hex(*text);
}

std::vector<std::byte> challenge_frame(const Nonce& nonce, bool has_secret) {
  return json_frame(FrameType::challenge, {{"protocol", kProtocol}, {"nonce", hex(nonce)}, {"secret", has_secret}});
}

std::optional<Challenge> read_challenge(const Frame& frame, std::string& why) {
  if (frame.header.type != FrameType::challenge) {
    why = fmt::format("it sent message type {} where a challenge comes first (another version of distbench?)",
                      static_cast<int>(frame.header.type));
    return std::nullopt;
  }
  const auto j = json_object({reinterpret_cast<const char*>(frame.payload.data()), frame.payload.size()});
  if (!j || text_field(*j, "protocol", 64) != kProtocol) {
    why = fmt::format("its challenge is not of protocol {} (another version of distbench?)", kProtocol);
    return std::nullopt;
  }
  const auto nonce = nonce_field(*j, "nonce");
  const auto secret = j->find("secret");
  if (!nonce || secret == j->end() || !secret->is_boolean()) {
    why = "its challenge is malformed";
    return std::nullopt;
  }
  return Challenge{*nonce, secret->get<bool>()};
}

int documented_exit_code(std::int64_t code) {
  if ((code >= 1 && code <= 7) || code == 130 || code == 143) return static_cast<int>(code);
  return static_cast<int>(ExitCode::failure);
}

}  // namespace distbench::connectors::handshake
