// The env:// connector's wire format. Every message is a 32-byte header and a payload of the length it announces:
//
//   offset  0  u32  magic 0x31454244 ("DBE1" on the wire)
//           4  u16  protocol version (1)
//           6  u16  type (FrameType)
//           8  u32  channel (data frames: which sequence the number counts in; 0 otherwise)
//          12  u32  reserved, 0
//          16  u64  sequence number
//          24  u64  payload length
//
// All fields little-endian. A header that is not of this form — a stray connection, a port scanner, another
// program — is refused before its payload is read, and a payload longer than the type allows is never buffered
// (the rendezvous reads at most FrameReader::wanted() bytes from a process not yet proven: what completes the frame
// in hand).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace distbench::connectors {

enum class FrameType : std::uint16_t {
  hello = 1,       // a rank to rank 0: who it is, and its proof (handshake.hpp: a proof, then JSON)
  welcome = 2,     // rank 0 to every rank: the table of all ranks (JSON)
  reject = 3,      // rank 0 to a rank: the job cannot start, and why (JSON)
  peer_hello = 4,  // a rank to a lower rank it connects to: who it is, and its proof (a proof, then JSON)
  data = 5,        // a connector message (bytes)
  abort = 6,       // the sender ends the job (JSON: exit code, reason)
  bye = 7,         // the sender is done and closes its connection
  challenge = 8,   // the side that accepted a connection, first: its nonce (JSON)
  accepted = 9,    // the answer to a hello that was proven: the accepting side's own proof (a proof, then JSON)
};

// The sequences data frames count in: each connector call kind has its own, so that a message that arrives after
// its call gave up is never taken for another call's.
enum class Channel : std::uint32_t { collective = 0, bounded = 1, point_to_point = 2 };

struct FrameHeader {
  FrameType type = FrameType::data;
  Channel channel = Channel::collective;
  std::uint64_t sequence = 0;
  std::uint64_t length = 0;
};

struct Frame {
  FrameHeader header;
  std::vector<std::byte> payload;
};

inline constexpr std::size_t kHeaderBytes = 32;
inline constexpr std::uint32_t kMagic = 0x31454244;
inline constexpr std::uint16_t kVersion = 1;
// Payload limits: what a process that has not proven itself may send is small; data may be large.
inline constexpr std::uint64_t kMaxHandshakeBytes = 64 * 1024;
inline constexpr std::uint64_t kMaxTableBytes = 256ULL << 20;
inline constexpr std::uint64_t kMaxDataBytes = 4ULL << 30;

std::array<std::byte, kHeaderBytes> encode_header(const FrameHeader& header);

// The header in `bytes` (exactly kHeaderBytes), or why it is not one: a wrong magic or version, an unknown type or
// channel, a non-zero reserved field, or a length over what the type allows (and over `max_length`).
struct Decoded {
  std::optional<FrameHeader> header;
  std::string error;
};
Decoded decode_header(std::span<const std::byte> bytes, std::uint64_t max_length);

// A whole frame, header and payload, ready to write.
std::vector<std::byte> encode_frame(const FrameHeader& header, std::span<const std::byte> payload);

// Cuts a byte stream into frames. Bytes come in any pieces; frames come out whole. A malformed header makes the
// reader fail for good (the connection is then dropped): `error()` says why.
class FrameReader {
 public:
  explicit FrameReader(std::uint64_t max_length) : max_length_(max_length) {}

  void feed(std::span<const std::byte> bytes);
  // The next whole frame, if one is buffered; std::nullopt when more bytes are needed or the stream is bad.
  std::optional<Frame> next();
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  // Bytes received and not yet handed out as frames (to pass a connection on without losing what came early).
  std::vector<std::byte> take_buffered();
  void set_max_length(std::uint64_t max_length) { max_length_ = max_length; }
  // How many more bytes complete the next frame (its header first, then its payload): 0 when a whole frame is
  // buffered or the stream is bad. Reading no more than this keeps a sender from making the reader hold more than
  // one frame of the allowed length, whatever it sends.
  std::size_t wanted() const;

 private:
  std::uint64_t max_length_;
  std::vector<std::byte> buffer_;
  std::size_t start_ = 0;  // first byte not yet consumed
  std::string error_;
};

}  // namespace distbench::connectors
