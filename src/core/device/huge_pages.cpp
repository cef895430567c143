#include "core/device/huge_pages.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <iterator>

namespace distbench {
namespace {

// "55d0-55d8 rw-p ..." -> [0x55d0, 0x55d8); nullopt for a line that is not a mapping's header.
std::optional<std::pair<std::uintptr_t, std::uintptr_t>> smaps_range(std::string_view line) {
  const auto dash = line.find('-');
  const auto space = line.find(' ');
  if (dash == std::string_view::npos || space == std::string_view::npos || dash > space) return std::nullopt;
  std::uintptr_t begin = 0, end = 0;
  const char* p = line.data();
  if (std::from_chars(p, p + dash, begin, 16).ptr != p + dash) return std::nullopt;
  if (std::from_chars(p + dash + 1, p + space, end, 16).ptr != p + space) return std::nullopt;
  return std::pair{begin, end};
}

// The kB figure of a "Key:   123 kB" line.
std::uint64_t smaps_kib(std::string_view line) {
  const auto colon = line.find(':');
  std::size_t i = colon + 1;
  while (i < line.size() && line[i] == ' ') ++i;
  std::uint64_t kib = 0;
  std::from_chars(line.data() + i, line.data() + line.size(), kib);
  return kib;
}

}  // namespace

std::string_view huge_pages_name(HugePages policy) { return policy == HugePages::on ? "on" : "off"; }

HugePages parse_huge_pages(std::string_view name) {
  if (name == "off") return HugePages::off;
  if (name == "on") return HugePages::on;
  throw usage_error(
      fmt::format("--huge-pages {}: not a policy; use off (malloc's, as IMB and OSU) or on (huge pages on every whole "
                  "2 MiB of the buffers)",
                  name));
}

std::optional<std::string> parse_thp_mode(std::string_view text) {
  const auto open = text.find('[');
  const auto close = text.find(']', open);
  if (open == std::string_view::npos || close == std::string_view::npos || close == open + 1) return std::nullopt;
  return std::string(text.substr(open + 1, close - open - 1));
}

std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  if (!std::getline(in, text)) return "unknown";
  return parse_thp_mode(text).value_or("unknown");
}

bool huge_page_policies_differ(std::string_view mode, std::uint64_t largest_bytes) {
  return mode == "madvise" && largest_bytes >= kHugePageAdviceFrom;
}

std::uint64_t parse_anon_huge_bytes(std::string_view smaps, std::uintptr_t start, std::size_t length) {
  const std::uintptr_t end = start + length;
  std::uint64_t kib = 0;
  bool inside = false;  // the mapping whose lines follow overlaps the range
  while (!smaps.empty()) {
    const auto newline = smaps.find('\n');
    const std::string_view line = smaps.substr(0, newline);
    smaps = newline == std::string_view::npos ? std::string_view{} : smaps.substr(newline + 1);
    if (const auto range = smaps_range(line)) {
      inside = range->first < end && start < range->second;
    } else if (inside && line.starts_with("AnonHugePages:")) {
      kib += smaps_kib(line);
    }
  }
  return kib * 1024;
}

std::optional<std::uint64_t> anon_huge_bytes(const void* start, std::size_t length) {
  std::ifstream in("/proc/self/smaps");
  if (!in) return std::nullopt;
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return parse_anon_huge_bytes(text, reinterpret_cast<std::uintptr_t>(start), length);
}

}  // namespace distbench
