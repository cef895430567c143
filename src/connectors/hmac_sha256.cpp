#include "connectors/hmac_sha256.hpp"

#include <algorithm>
#include <bit>

namespace distbench::connectors {
namespace {

// FIPS 180-4, 4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
constexpr std::array<std::uint32_t, 64> kRoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

// FIPS 180-4, 5.3.3: the initial hash value.
constexpr std::array<std::uint32_t, 8> kInitialState = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

constexpr std::size_t kBlockBytes = 64;

std::uint32_t big_endian_word(const std::uint8_t* p) {
  return (static_cast<std::uint32_t>(p[0]) << 24) | (static_cast<std::uint32_t>(p[1]) << 16) |
         (static_cast<std::uint32_t>(p[2]) << 8) | static_cast<std::uint32_t>(p[3]);
}

}  // namespace

Sha256::Sha256() : state_(kInitialState) {}

// FIPS 180-4, 6.2.2: one 512-bit block.
void Sha256::block(const std::uint8_t* p) {
  std::array<std::uint32_t, 64> w{};
  for (std::size_t t = 0; t < 16; ++t) w[t] = big_endian_word(p + 4 * t);
  for (std::size_t t = 16; t < 64; ++t) {
    const std::uint32_t s0 = std::rotr(w[t - 15], 7) ^ std::rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const std::uint32_t s1 = std::rotr(w[t - 2], 17) ^ std::rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  auto [a, b, c, d, e, f, g, h] = state_;
  for (std::size_t t = 0; t < 64; ++t) {
    const std::uint32_t big_s1 = std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25);
    const std::uint32_t choose = (e & f) ^ (~e & g);
    const std::uint32_t t1 = h + big_s1 + choose + kRoundConstants[t] + w[t];
    const std::uint32_t big_s0 = std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22);
    const std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    const std::uint32_t t2 = big_s0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
  state_[5] += f;
  state_[6] += g;
  state_[7] += h;
}

void Sha256::update(std::span<const std::uint8_t> bytes) {
  total_ += bytes.size();
  std::size_t at = 0;
  if (buffered_ > 0) {
    const std::size_t take = std::min(kBlockBytes - buffered_, bytes.size());
    std::copy_n(bytes.data(), take, buffer_.data() + buffered_);
    buffered_ += take;
    at = take;
    if (buffered_ < kBlockBytes) return;
    block(buffer_.data());
    buffered_ = 0;
  }
  for (; bytes.size() - at >= kBlockBytes; at += kBlockBytes) block(bytes.data() + at);
  std::copy(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.end(), buffer_.begin());
  buffered_ = bytes.size() - at;
}

void Sha256::update(std::string_view text) {
  update(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

// FIPS 180-4, 5.1.1: a 1 bit, zeros, and the message's length in bits as a 64-bit big-endian number.
Digest Sha256::finish() {
  const std::uint64_t bits = total_ * 8;
  std::array<std::uint8_t, kBlockBytes + 8> pad{};
  pad[0] = 0x80;
  // The 1 bit and the zeros: up to 56 bytes into a block, in this one or the next.
  const std::size_t before_length = buffered_ < 56 ? 56 - buffered_ : 120 - buffered_;
  for (std::size_t i = 0; i < 8; ++i) pad[before_length + i] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
  update(std::span(pad.data(), before_length + 8));
  Digest out{};
  for (std::size_t i = 0; i < 8; ++i) {
    for (std::size_t k = 0; k < 4; ++k) out[4 * i + k] = static_cast<std::uint8_t>(state_[i] >> (24 - 8 * k));
  }
  return out;
}

Digest sha256(std::span<const std::uint8_t> bytes) {
  Sha256 h;
  h.update(bytes);
  return h.finish();
}

// RFC 2104: H((K ^ opad) || H((K ^ ipad) || message)), K padded with zeros to a block (hashed first if longer).
HmacSha256::HmacSha256(std::span<const std::uint8_t> key) {
  std::array<std::uint8_t, kBlockBytes> k{};
  if (key.size() > kBlockBytes) {
    const Digest d = sha256(key);
    std::copy(d.begin(), d.end(), k.begin());
  } else {
    std::copy(key.begin(), key.end(), k.begin());
  }
  std::array<std::uint8_t, kBlockBytes> inner_key{};
  for (std::size_t i = 0; i < kBlockBytes; ++i) {
    inner_key[i] = k[i] ^ 0x36;
    outer_key_[i] = k[i] ^ 0x5c;
  }
  inner_.update(inner_key);
}

Digest HmacSha256::finish() {
  const Digest inner = inner_.finish();
  Sha256 outer;
  outer.update(outer_key_);
  outer.update(inner);
  return outer.finish();
}

Digest hmac_sha256(std::span<const std::uint8_t> key, std::span<const std::uint8_t> message) {
  HmacSha256 h(key);
  h.update(message);
  return h.finish();
}

bool equal_in_constant_time(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  if (a.size() != b.size()) return false;
  std::uint8_t differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differ = static_cast<std::uint8_t>(differ | (a[i] ^ b[i]));
  // Read through a volatile so that the compiler cannot stop the loop at the first difference.
  const volatile std::uint8_t seen = differ;
  return seen == 0;
}

}  // namespace distbench::connectors
