#include "core/sys/node_facts.hpp"

#include "core/sys/environment.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>

extern char** environ;  // POSIX

namespace distbench {
namespace {

constexpr std::string_view kEnvKeyPrefix = "env.";
constexpr std::string_view kNotComparedKey = "facts.not_compared";

// The first line of a small system file under `root` ("" when it cannot be read), trimmed; at most 4 KiB is read.
std::string first_line_under(const std::string& root, std::string_view path) {
  std::string full = root;
  if (!full.empty() && full.back() == '/') full.pop_back();
  full += path;
  std::ifstream in(full, std::ios::binary);
  std::array<char, 4096> buffer{};
  in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  std::string_view text(buffer.data(), static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  text = text.substr(0, text.find('\n'));
  const auto begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  const auto end = text.find_last_not_of(" \t\r");
  return std::string(text.substr(begin, end - begin + 1));
}

// os-release's PRETTY_NAME, unquoted; "" when absent.
std::string os_pretty_name(const std::string& root) {
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"}) {
    std::string full = root;
    if (!full.empty() && full.back() == '/') full.pop_back();
    std::ifstream in(full + path);
    std::string line;
    for (int lines = 0; lines < 100 && std::getline(in, line); ++lines) {
      if (!line.starts_with("PRETTY_NAME=")) continue;
      std::string value = line.substr(12);
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
      }
      return value;
    }
  }
  return {};
}

// The NVIDIA kernel module's version: /sys/module/nvidia/version, else the word after "Kernel Module" in
// /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug ..."); "none".
std::string nvidia_driver(const std::string& root) {
  if (std::string v = first_line_under(root, "/sys/module/nvidia/version"); !v.empty()) return v;
  const std::string proc = first_line_under(root, "/proc/driver/nvidia/version");
  constexpr std::string_view kMarker = "Kernel Module";
  if (const auto at = proc.find(kMarker); at != std::string::npos) {
    const auto begin = proc.find_first_not_of(' ', at + kMarker.size());
    if (begin != std::string::npos) return proc.substr(begin, proc.find(' ', begin) - begin);
  }
  return proc.empty() ? "none" : proc;
}

std::string or_text(std::string value, const char* fallback) { return value.empty() ? fallback : value; }

// The word in brackets, the mode in effect ("always [madvise] never"); "none" when there is none. (The same reading
// as core/device/huge_pages.hpp's parse_thp_mode, which this layer may not include.)
std::string bracketed(std::string_view text) {
  const auto open = text.find('[');
  const auto close = text.find(']', open);
  if (open == std::string_view::npos || close == std::string_view::npos || close == open + 1) return "none";
  return std::string(text.substr(open + 1, close - open - 1));
}

// A variable the drift phase compares: NCCL_*, OMPI_*, UCX_*, less what the launcher sets per rank, node or job
// (is_launcher_bookkeeping) and the launcher's own settings: OMPI_MCA_plm* configure mpirun's launch on the first
// node, and mpirun sets OMPI_MCA_plm=rsh on the nodes its daemons start (seen on the namespace cluster).
bool compared_variable(std::string_view name) {
  const bool wanted = name.starts_with("NCCL_") || name.starts_with("OMPI_") || name.starts_with("UCX_");
  return wanted && !is_launcher_bookkeeping(name) && !name.starts_with("OMPI_MCA_plm");
}

bool is_env_key(const std::string& key) { return key.starts_with(kEnvKeyPrefix); }

// At most `max_chars` bytes, valid UTF-8 (a sequence the cut split, or a stray byte, becomes U+FFFD): the facts
// travel as JSON.
std::string fact_text(std::string text, std::size_t max_chars) {
  if (text.size() > max_chars) text.resize(max_chars);
  return valid_utf8(text);
}

}  // namespace

std::string limit_text(std::uint64_t value, bool bytes) {
  if (value == kNoLimit) return "unlimited";
  if (!bytes) return std::to_string(value);
  constexpr std::array<const char*, 5> kUnits = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (value == 0 || value % 1024 != 0) return fmt::format("{} bytes", value);
  std::size_t unit = 0;
  value /= 1024;
  while (unit + 1 < kUnits.size() && value % 1024 == 0) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{} {}", value, kUnits[unit]);
}

NodeFactSources this_process_sources(KeyValues versions) {
  NodeFactSources s;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto eq = text.find('=');
    if (eq != std::string_view::npos) s.environment.emplace_back(text.substr(0, eq), text.substr(eq + 1));
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_MEMLOCK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) s.memlock_bytes = limit.rlim_cur;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) s.open_files = limit.rlim_cur;
  s.versions = std::move(versions);
  return s;
}

KeyValues node_facts(const NodeFactSources& sources) {
  const std::string& root = sources.root;
  KeyValues facts = sources.versions;
  facts.emplace_back("kernel", or_text(first_line_under(root, "/proc/sys/kernel/osrelease"), "unknown"));
  facts.emplace_back("os", or_text(os_pretty_name(root), "unknown"));
  facts.emplace_back("nvidia.driver", nvidia_driver(root));
  facts.emplace_back("limit.memlock", limit_text(sources.memlock_bytes, true));
  facts.emplace_back("limit.nofile", limit_text(sources.open_files, false));
  facts.emplace_back("thp", bracketed(first_line_under(root, "/sys/kernel/mm/transparent_hugepage/enabled")));
  facts.emplace_back("cpu.governor",
                     or_text(first_line_under(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"), "none"));
  KeyValues env;
  for (const auto& [name, value] : sources.environment) {
    if (compared_variable(name)) env.emplace_back(fmt::format("{}{}", kEnvKeyPrefix, name), value);
  }
  std::sort(env.begin(), env.end());
  facts.insert(facts.end(), std::make_move_iterator(env.begin()), std::make_move_iterator(env.end()));
  merge_facts(facts, {});
  return facts;
}

void merge_facts(KeyValues& facts, KeyValues more) {
  std::size_t not_compared = 0;
  for (auto it = facts.begin(); it != facts.end();) {  // a count merged before is counted again below
    if (it->first == kNotComparedKey) {
      not_compared += std::stoul(it->second.substr(0, it->second.find(' ')));
      it = facts.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& fact : more) {  // not a structured binding: clang 14 (the sanitizer builds) cannot capture one
    const std::string& key = fact.first;
    auto same = std::find_if(facts.begin(), facts.end(), [&](const auto& kv) { return kv.first == key; });
    if (same != facts.end()) {
      same->second = std::move(fact.second);
    } else {
      auto env = std::find_if(facts.begin(), facts.end(), [](const auto& kv) { return is_env_key(kv.first); });
      facts.emplace(env, std::move(fact));
    }
  }
  KeyValues kept;
  for (auto& [key, value] : facts) {
    // One pair is kept free for the count of what was left out.
    if (key.size() > kMaxFactKeyChars || kept.size() + 1 >= kMaxNodeFacts) {
      ++not_compared;
      continue;
    }
    kept.emplace_back(valid_utf8(key), fact_text(std::move(value), kMaxFactValueChars));
  }
  if (not_compared > 0) {
    kept.emplace_back(std::string(kNotComparedKey),
                      fmt::format("{} (more than {} facts, or names longer than {} characters)", not_compared,
                                  kMaxNodeFacts, kMaxFactKeyChars));
  }
  facts = std::move(kept);
}

}  // namespace distbench
