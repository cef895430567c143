// Point-to-point messages a rank sends itself, with the connector contract's matching: the k-th send meets the
// k-th receive, a receive with nothing to take waits until its deadline (nothing else can send while this thread
// waits) and times out, and a message sent after its receive gave up is never taken by a later one.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

namespace distbench::connectors {

class SelfMessages {
 public:
  void send(std::span<const std::byte> data) {
    waiting_.emplace(sent_++, std::vector<std::byte>(data.begin(), data.end()));
  }
  // The message of this receive, or Error(timeout) at `deadline`.
  std::vector<std::byte> receive(std::chrono::steady_clock::time_point deadline);

 private:
  std::uint64_t sent_ = 0;
  std::uint64_t received_ = 0;
  std::map<std::uint64_t, std::vector<std::byte>> waiting_;
};

}  // namespace distbench::connectors
