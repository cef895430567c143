// The env:// wire format (connectors/frame): headers round-trip, anything else is refused before its payload is
// read, and a stream cut anywhere comes out as the same frames.
#include "connectors/frame.hpp"

#include <gtest/gtest.h>

#include <string>

namespace distbench::connectors {
namespace {

std::vector<std::byte> bytes(const std::string& text) {
  const auto* first = reinterpret_cast<const std::byte*>(text.data());
  return {first, first + text.size()};
}

TEST(Frame, HeaderRoundTrips) {
  const FrameHeader h{FrameType::data, Channel::point_to_point, 0x0102030405060708ULL, 12345};
  const auto encoded = encode_header(h);
  EXPECT_EQ(encoded[0], std::byte{0x44});  // "DBE1" on the wire
  EXPECT_EQ(encoded[3], std::byte{0x31});
  const Decoded d = decode_header(encoded, kMaxDataBytes);
  ASSERT_TRUE(d.header) << d.error;
  EXPECT_EQ(d.header->type, h.type);
  EXPECT_EQ(d.header->channel, h.channel);
  EXPECT_EQ(d.header->sequence, h.sequence);
  EXPECT_EQ(d.header->length, h.length);
}

TEST(Frame, StrangersAreRefused) {
  auto head = encode_header({FrameType::hello, Channel::collective, 0, 10});
  auto bad = head;
  bad[0] = std::byte{'G'};  // "GET / HTTP/1.1"
  EXPECT_NE(decode_header(bad, kMaxDataBytes).error.find("magic"), std::string::npos);
  bad = head;
  bad[4] = std::byte{2};
  EXPECT_NE(decode_header(bad, kMaxDataBytes).error.find("version 2"), std::string::npos);
  bad = head;
  bad[6] = std::byte{99};
  EXPECT_NE(decode_header(bad, kMaxDataBytes).error.find("unknown message type 99"), std::string::npos);
  bad = head;
  bad[8] = std::byte{7};
  EXPECT_NE(decode_header(bad, kMaxDataBytes).error.find("unknown channel"), std::string::npos);
  bad = head;
  bad[13] = std::byte{1};
  EXPECT_NE(decode_header(bad, kMaxDataBytes).error.find("reserved"), std::string::npos);
  EXPECT_FALSE(decode_header(std::span(head).first(10), kMaxDataBytes).header);
}

TEST(Frame, LengthsOverTheTypesLimitAreRefusedBeforeReading) {
  EXPECT_TRUE(
      decode_header(encode_header({FrameType::hello, Channel::collective, 0, kMaxHandshakeBytes}), kMaxDataBytes)
          .header);
  EXPECT_FALSE(
      decode_header(encode_header({FrameType::hello, Channel::collective, 0, kMaxHandshakeBytes + 1}), kMaxDataBytes)
          .header);
  EXPECT_FALSE(decode_header(encode_header({FrameType::data, Channel::collective, 0, ~0ULL}), kMaxDataBytes).header);
  // A reader may be stricter than the type (a connection that has not said who it is).
  EXPECT_FALSE(decode_header(encode_header({FrameType::data, Channel::collective, 0, 100}), 99).header);
}

TEST(FrameReader, AStreamCutAnywhereGivesTheSameFrames) {
  std::vector<std::byte> stream;
  for (int i = 0; i < 5; ++i) {
    const auto f = encode_frame({FrameType::data, Channel::bounded, static_cast<std::uint64_t>(i), 0},
                                bytes(std::string(static_cast<std::size_t>(i * 7), static_cast<char>('a' + i))));
    stream.insert(stream.end(), f.begin(), f.end());
  }
  for (std::size_t piece : {1U, 3U, 31U, 32U, 33U, 1000U}) {
    FrameReader reader(kMaxDataBytes);
    std::vector<Frame> frames;
    for (std::size_t at = 0; at < stream.size(); at += piece) {
      reader.feed(std::span(stream).subspan(at, std::min(piece, stream.size() - at)));
      while (auto f = reader.next()) frames.push_back(std::move(*f));
    }
    ASSERT_EQ(frames.size(), 5U) << "pieces of " << piece;
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(frames[static_cast<std::size_t>(i)].header.sequence, static_cast<std::uint64_t>(i));
      EXPECT_EQ(frames[static_cast<std::size_t>(i)].payload,
                bytes(std::string(static_cast<std::size_t>(i * 7), static_cast<char>('a' + i))));
    }
    EXPECT_TRUE(reader.take_buffered().empty());
  }
}

TEST(FrameReader, JunkFailsTheStreamForGood) {
  FrameReader reader(kMaxHandshakeBytes);
  reader.feed(bytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n and some more bytes"));
  EXPECT_FALSE(reader.next());
  EXPECT_TRUE(reader.failed());
  EXPECT_NE(reader.error().find("not a distbench connection"), std::string::npos);
  reader.feed(encode_frame({FrameType::hello}, bytes("{}")));
  EXPECT_FALSE(reader.next());
}

TEST(FrameReader, WhatCameAfterAFrameIsHandedOn) {
  FrameReader reader(kMaxHandshakeBytes);
  auto first = encode_frame({FrameType::peer_hello}, bytes("{\"rank\":1}"));
  const auto second = encode_frame({FrameType::data, Channel::collective, 9, 0}, bytes(std::string(70000, 'x')));
  first.insert(first.end(), second.begin(), second.begin() + 100);
  reader.feed(first);
  ASSERT_TRUE(reader.next());
  // The data frame is over the handshake limit, but it is not this reader's to judge: it goes on as bytes.
  const auto rest = reader.take_buffered();
  EXPECT_EQ(rest, std::vector<std::byte>(second.begin(), second.begin() + 100));
}

// wanted() is what a reader of a process not yet proven reads at most: the rest of the header, then the rest of the
// payload the header announced, and nothing once a frame is whole (whatever follows stays unread).
TEST(FrameReader, WantedIsWhatCompletesTheFrameInHand) {
  FrameReader reader(kMaxHandshakeBytes);
  EXPECT_EQ(reader.wanted(), kHeaderBytes);
  const auto frame = encode_frame({FrameType::hello}, bytes(std::string(100, 'h')));
  reader.feed(std::span(frame).first(10));
  EXPECT_EQ(reader.wanted(), kHeaderBytes - 10);
  reader.feed(std::span(frame).subspan(10, kHeaderBytes - 10));
  EXPECT_EQ(reader.wanted(), 100u);
  reader.feed(std::span(frame).subspan(kHeaderBytes, 60));
  EXPECT_EQ(reader.wanted(), 40u);
  reader.feed(std::span(frame).subspan(kHeaderBytes + 60));
  EXPECT_EQ(reader.wanted(), 0u);
  ASSERT_TRUE(reader.next());
  EXPECT_EQ(reader.wanted(), kHeaderBytes);
  // A header announcing more than the reader allows: nothing more is wanted, and the stream fails.
  FrameReader strict(kMaxHandshakeBytes);
  strict.feed(encode_header({FrameType::hello, Channel::collective, 0, kMaxHandshakeBytes + 1}));
  EXPECT_EQ(strict.wanted(), 0u);
  EXPECT_FALSE(strict.next());
  EXPECT_TRUE(strict.failed());
}

}  // namespace
}  // namespace distbench::connectors
