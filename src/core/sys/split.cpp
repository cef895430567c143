#include "core/sys/split.hpp"

namespace distbench {

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::vector<std::string> split_list(std::string_view s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = s.find(sep, start);
    parts.emplace_back(trim_spaces(s.substr(start, at - start)));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

}  // namespace distbench
