#include "connectors/self_messages.hpp"

#include "core/error.hpp"

#include <thread>

namespace distbench::connectors {

std::vector<std::byte> SelfMessages::receive(std::chrono::steady_clock::time_point deadline) {
  const std::uint64_t mine = received_++;
  waiting_.erase(waiting_.begin(), waiting_.lower_bound(mine));  // their receives gave up
  const auto it = waiting_.find(mine);
  if (it == waiting_.end()) {
    std::this_thread::sleep_until(deadline);
    throw Error(ExitCode::timeout, "receive_until: this rank sent itself nothing before the deadline");
  }
  auto message = std::move(it->second);
  waiting_.erase(it);
  return message;
}

}  // namespace distbench::connectors
