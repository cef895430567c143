// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the env:// rendezvous's challenge and response: a process
// proves that it holds the job's secret without sending it. None of the project's libraries offers them; this is the
// textbook algorithm, checked against the FIPS 180-4 examples and the RFC 4231 test cases (test_hmac_sha256.cpp).
// Not a general-purpose crypto library: no streaming of secrets to disk, no key erasure beyond what the caller does.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace distbench::connectors {

using Digest = std::array<std::uint8_t, 32>;

// SHA-256, fed in pieces of any size.
class Sha256 {
 public:
  Sha256();
  void update(std::span<const std::uint8_t> bytes);
  void update(std::string_view text);
  // The digest of everything fed; the object is spent afterwards.
  Digest finish();

 private:
  void block(const std::uint8_t* p);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_ = 0;  // bytes fed
};

Digest sha256(std::span<const std::uint8_t> bytes);

// HMAC-SHA256 with `key` (any length: longer than a block, it is hashed first), fed in pieces.
class HmacSha256 {
 public:
  explicit HmacSha256(std::span<const std::uint8_t> key);
  void update(std::span<const std::uint8_t> bytes) { inner_.update(bytes); }
  void update(std::string_view text) { inner_.update(text); }
  Digest finish();

 private:
  Sha256 inner_;
  std::array<std::uint8_t, 64> outer_key_{};
};

Digest hmac_sha256(std::span<const std::uint8_t> key, std::span<const std::uint8_t> message);

// Whether `a` and `b` are equal, in a time that depends on their length only (not on where they first differ), so
// that a stranger cannot learn a proof byte by byte from how long rejecting it takes.
bool equal_in_constant_time(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b);

}  // namespace distbench::connectors
