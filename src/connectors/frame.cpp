#include "connectors/frame.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace distbench::connectors {
namespace {

template <typename T>
void put(std::span<std::byte> out, std::size_t at, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i) out[at + i] = static_cast<std::byte>((value >> (8 * i)) & 0xFF);
}

template <typename T>
T get(std::span<const std::byte> in, std::size_t at) {
  T value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) value |= static_cast<T>(std::to_integer<T>(in[at + i]) << (8 * i));
  return value;
}

std::uint64_t type_limit(FrameType type) {
  switch (type) {
    case FrameType::hello:
    case FrameType::peer_hello:
    case FrameType::reject:
    case FrameType::abort:
    case FrameType::bye:
    case FrameType::challenge:
    case FrameType::accepted: return kMaxHandshakeBytes;
    case FrameType::welcome: return kMaxTableBytes;
    case FrameType::data: return kMaxDataBytes;
  }
  return 0;
}

}  // namespace

std::array<std::byte, kHeaderBytes> encode_header(const FrameHeader& h) {
  std::array<std::byte, kHeaderBytes> out{};
  put<std::uint32_t>(out, 0, kMagic);
  put<std::uint16_t>(out, 4, kVersion);
  put<std::uint16_t>(out, 6, static_cast<std::uint16_t>(h.type));
  put<std::uint32_t>(out, 8, static_cast<std::uint32_t>(h.channel));
  put<std::uint32_t>(out, 12, 0);
  put<std::uint64_t>(out, 16, h.sequence);
  put<std::uint64_t>(out, 24, h.length);
  return out;
}

Decoded decode_header(std::span<const std::byte> bytes, std::uint64_t max_length) {
  if (bytes.size() != kHeaderBytes)
    return {std::nullopt, fmt::format("a header is {} bytes, not {}", kHeaderBytes, bytes.size())};
  if (get<std::uint32_t>(bytes, 0) != kMagic) return {std::nullopt, "not a distbench connection (wrong magic number)"};
  if (const auto v = get<std::uint16_t>(bytes, 4); v != kVersion) {
    return {std::nullopt, fmt::format("protocol version {} (this distbench speaks {})", v, kVersion)};
  }
  const auto type = get<std::uint16_t>(bytes, 6);
  if (type < static_cast<std::uint16_t>(FrameType::hello) || type > static_cast<std::uint16_t>(FrameType::accepted)) {
    return {std::nullopt, fmt::format("unknown message type {}", type)};
  }
  const auto channel = get<std::uint32_t>(bytes, 8);
  if (channel > static_cast<std::uint32_t>(Channel::point_to_point)) {
    return {std::nullopt, fmt::format("unknown channel {}", channel)};
  }
  if (get<std::uint32_t>(bytes, 12) != 0) return {std::nullopt, "a reserved field is not zero"};
  FrameHeader h;
  h.type = static_cast<FrameType>(type);
  h.channel = static_cast<Channel>(channel);
  h.sequence = get<std::uint64_t>(bytes, 16);
  h.length = get<std::uint64_t>(bytes, 24);
  const std::uint64_t limit = std::min(type_limit(h.type), max_length);
  if (h.length > limit) {
    return {std::nullopt, fmt::format("a payload of {} bytes, over the {} allowed here", h.length, limit)};
  }
  return {h, {}};
}

std::vector<std::byte> encode_frame(const FrameHeader& header, std::span<const std::byte> payload) {
  FrameHeader h = header;
  h.length = payload.size();
  const auto head = encode_header(h);
  std::vector<std::byte> out(kHeaderBytes + payload.size());
  std::memcpy(out.data(), head.data(), kHeaderBytes);
  if (!payload.empty()) std::memcpy(out.data() + kHeaderBytes, payload.data(), payload.size());
  return out;
}

void FrameReader::feed(std::span<const std::byte> bytes) {
  if (failed()) return;
  if (start_ > 0 && start_ == buffer_.size()) {
    buffer_.clear();
    start_ = 0;
  }
  if (bytes.empty()) return;
  const std::size_t old = buffer_.size();
  buffer_.resize(old + bytes.size());
  std::memcpy(buffer_.data() + old, bytes.data(), bytes.size());
}

std::optional<Frame> FrameReader::next() {
  if (failed() || buffer_.size() - start_ < kHeaderBytes) return std::nullopt;
  const std::span<const std::byte> head(buffer_.data() + start_, kHeaderBytes);
  const Decoded d = decode_header(head, max_length_);
  if (!d.header) {
    error_ = d.error;
    buffer_.clear();
    start_ = 0;
    return std::nullopt;
  }
  if (buffer_.size() - start_ - kHeaderBytes < d.header->length) return std::nullopt;
  Frame f{*d.header, {}};
  const auto first = buffer_.begin() + static_cast<std::ptrdiff_t>(start_ + kHeaderBytes);
  f.payload.assign(first, first + static_cast<std::ptrdiff_t>(d.header->length));
  start_ += kHeaderBytes + d.header->length;
  // Keep the buffer from growing without bound when frames keep coming: drop what was consumed once it dominates.
  if (start_ > (1U << 20) && start_ * 2 > buffer_.size()) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(start_));
    start_ = 0;
  }
  return f;
}

std::size_t FrameReader::wanted() const {
  if (failed()) return 0;
  const std::size_t have = buffer_.size() - start_;
  if (have < kHeaderBytes) return kHeaderBytes - have;
  const Decoded d = decode_header(std::span<const std::byte>(buffer_.data() + start_, kHeaderBytes), max_length_);
  if (!d.header) return 0;  // next() fails the stream
  const std::uint64_t whole = kHeaderBytes + d.header->length;
  return have >= whole ? 0 : static_cast<std::size_t>(whole - have);
}

std::vector<std::byte> FrameReader::take_buffered() {
  std::vector<std::byte> out(buffer_.begin() + static_cast<std::ptrdiff_t>(start_), buffer_.end());
  buffer_.clear();
  start_ = 0;
  return out;
}

}  // namespace distbench::connectors
