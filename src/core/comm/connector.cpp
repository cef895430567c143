#include "core/comm/connector.hpp"

namespace distbench {

void broadcast_string(Connector& c, std::string& text, int root, const ArmedStep& step) {
  auto length = static_cast<std::uint64_t>(text.size());
  broadcast_value(c, length, root, step);
  text.resize(length);
  c.broadcast(std::as_writable_bytes(std::span(text.data(), text.size())), root, step);
}

std::vector<std::string> allgather_string(Connector& c, const std::string& text, const ArmedStep& step) {
  auto parts = c.allgather(std::as_bytes(std::span(text.data(), text.size())), step);
  std::vector<std::string> out;
  out.reserve(parts.size());
  for (const auto& part : parts) out.emplace_back(reinterpret_cast<const char*>(part.data()), part.size());
  return out;
}

std::vector<std::optional<std::string>> gather_strings_until(Connector& c, const std::string& text, int root,
                                                             std::chrono::steady_clock::time_point deadline) {
  auto parts = c.gather_until(std::as_bytes(std::span(text.data(), text.size())), root, deadline);
  std::vector<std::optional<std::string>> out;
  out.reserve(parts.size());
  for (const auto& part : parts) {
    if (part) {
      out.emplace_back(std::in_place, reinterpret_cast<const char*>(part->data()), part->size());
    } else {
      out.emplace_back(std::nullopt);
    }
  }
  return out;
}

void broadcast_string_until(Connector& c, std::string& text, int root, std::chrono::steady_clock::time_point deadline) {
  const auto mine = std::as_bytes(std::span(text.data(), text.size()));
  std::vector<std::byte> bytes(mine.begin(), mine.end());
  c.broadcast_until(bytes, root, deadline);
  text.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace distbench

#include "core/error.hpp"

namespace distbench {

void raise_if_any(Connector& c, const Error* local, const ArmedStep& step) {
  const std::string mine =
      local == nullptr ? std::string() : fmt::format("{}|{}", static_cast<int>(local->code()), local->what());
  for (const auto& text : allgather_string(c, mine, step)) {
    if (text.empty()) continue;
    const auto bar = text.find('|');
    throw Error(static_cast<ExitCode>(std::stoi(text.substr(0, bar))), text.substr(bar + 1));
  }
}

}  // namespace distbench
