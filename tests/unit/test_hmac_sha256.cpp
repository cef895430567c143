// SHA-256 and HMAC-SHA256 (connectors/hmac_sha256) against the published test vectors: the examples of FIPS 180-4
// (NIST's "SHA256.pdf" and "SHA2_Additional.pdf": "abc", the 448- and 896-bit messages, a million 'a'), the empty
// message, and the seven test cases of RFC 4231, section 4. Fed in pieces of every size, the digest is the same.
#include "connectors/hmac_sha256.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace distbench::connectors {
namespace {

std::vector<std::uint8_t> ascii(std::string_view text) { return {text.begin(), text.end()}; }

std::vector<std::uint8_t> repeated(std::uint8_t b, std::size_t n) { return std::vector<std::uint8_t>(n, b); }

std::string hex(std::span<const std::uint8_t> d) {
  std::string out;
  for (std::uint8_t b : d) out += fmt::format("{:02x}", b);
  return out;
}

TEST(Sha256, Fips180Examples) {
  EXPECT_EQ(hex(sha256(ascii("abc"))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(sha256(ascii("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(sha256(ascii("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnop"
                             "qrlmnopqrsmnopqrstnopqrstu"))),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(hex(sha256({})), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(sha256(repeated('a', 1000000))), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Every length around the block and padding boundaries (55, 56, 63, 64, 119, 120 ...), fed whole and in pieces of
// every size from 1 to 70 bytes: the pieces never change the digest.
TEST(Sha256, PiecesOfAnySizeGiveTheSameDigest) {
  for (std::size_t n : {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 200}) {
    std::vector<std::uint8_t> message(n);
    for (std::size_t i = 0; i < n; ++i) message[i] = static_cast<std::uint8_t>(i * 7 + 3);
    const Digest whole = sha256(message);
    for (std::size_t piece = 1; piece <= 70; ++piece) {
      Sha256 h;
      for (std::size_t at = 0; at < n; at += piece) h.update(std::span(message).subspan(at, std::min(piece, n - at)));
      ASSERT_EQ(h.finish(), whole) << "length " << n << ", pieces of " << piece;
    }
  }
}

struct Rfc4231Case {
  const char* name;
  std::vector<std::uint8_t> key;
  std::vector<std::uint8_t> data;
  const char* hmac;  // the whole HMAC-SHA256, or its first 128 bits (test case 5)
};

TEST(HmacSha256, Rfc4231TestCases) {
  std::vector<std::uint8_t> key4;
  for (std::uint8_t b = 1; b <= 25; ++b) key4.push_back(b);
  const std::vector<Rfc4231Case> cases = {
      {"1", repeated(0x0b, 20), ascii("Hi There"), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"2", ascii("Jefe"), ascii("what do ya want for nothing?"),
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {"3", repeated(0xaa, 20), repeated(0xdd, 50), "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
      {"4", key4, repeated(0xcd, 50), "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
      {"5 (truncated to 128 bits)", repeated(0x0c, 20), ascii("Test With Truncation"),
       "a3b6167473100ee06e0c796c2955552b"},
      {"6", repeated(0xaa, 131), ascii("Test Using Larger Than Block-Size Key - Hash Key First"),
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {"7", repeated(0xaa, 131),
       ascii("This is a test using a larger than block-size key and a larger than block-size data. The key needs to "
             "be hashed before being used by the HMAC algorithm."),
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
  };
  for (const auto& c : cases) {
    const std::string expected = c.hmac;
    const std::string got = hex(hmac_sha256(c.key, c.data));
    EXPECT_EQ(got.substr(0, expected.size()), expected) << "RFC 4231 test case " << c.name;
    HmacSha256 pieces(c.key);
    for (std::uint8_t b : c.data) pieces.update(std::span(&b, 1));
    EXPECT_EQ(hex(pieces.finish()), got) << "RFC 4231 test case " << c.name << ", a byte at a time";
  }
}

TEST(HmacSha256, ConstantTimeComparison) {
  const Digest a = sha256(ascii("a"));
  Digest b = a;
  EXPECT_TRUE(equal_in_constant_time(a, b));
  for (std::size_t i : {0, 15, 31}) {
    b = a;
    b[i] ^= 0x01;
    EXPECT_FALSE(equal_in_constant_time(a, b)) << "byte " << i;
  }
  EXPECT_FALSE(equal_in_constant_time(a, std::span(a).first(31)));
  EXPECT_TRUE(equal_in_constant_time({}, {}));
}

}  // namespace
}  // namespace distbench::connectors
