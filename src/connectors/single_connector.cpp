#include "connectors/single_connector.hpp"

#include "connectors/socket.hpp"
#include "core/error.hpp"

#include <cstdlib>

namespace distbench::connectors {
namespace {

void check_self(int peer, const char* what) {
  if (peer != 0) throw failure(fmt::format("{}: rank {} does not exist; a process alone is rank 0 of 1", what, peer));
}

}  // namespace

std::string SingleConnector::hostname() const { return host_name(); }

void SingleConnector::send_until(int peer, std::span<const std::byte> data, std::chrono::steady_clock::time_point) {
  check_self(peer, "send_until");
  to_self_.send(data);
}

std::vector<std::byte> SingleConnector::receive_until(int peer, std::chrono::steady_clock::time_point deadline) {
  check_self(peer, "receive_until");
  return to_self_.receive(deadline);
}

void SingleConnector::abort(int exit_code, const std::string&) { std::_Exit(exit_code); }

}  // namespace distbench::connectors
