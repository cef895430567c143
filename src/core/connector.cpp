#include "core/connector.hpp"

namespace distbench {

void broadcast_string(Connector& c, std::string& text, int root) {
  auto length = static_cast<std::uint64_t>(text.size());
  broadcast_value(c, length, root);
  text.resize(length);
  c.broadcast(std::as_writable_bytes(std::span(text.data(), text.size())), root);
}

std::vector<std::string> allgather_string(Connector& c, const std::string& text) {
  auto parts = c.allgather(std::as_bytes(std::span(text.data(), text.size())));
  std::vector<std::string> out;
  out.reserve(parts.size());
  for (const auto& part : parts) out.emplace_back(reinterpret_cast<const char*>(part.data()), part.size());
  return out;
}

}  // namespace distbench
