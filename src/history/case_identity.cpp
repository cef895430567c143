#include "history/case_identity.hpp"

#include "core/error.hpp"
#include "history/ingest.hpp"

#include <fmt/format.h>

namespace distbench::history {

std::string group_of(const GroupFacts& g) {
  return fmt::format("{} | {} | {} | np {} | {}", g.machine, g.benchmark, g.backend, g.world,
                     g.timing.empty() ? "-" : g.timing);
}

std::string series_key(std::string_view group, std::string_view kind, const std::vector<Param>& params) {
  std::string key = fmt::format("{} | {}", group, kind);
  for (const Param& p : params) key += fmt::format("|{}={}", p.key, param_text(p.value));
  return key;
}

void check_text_length(std::string_view text, std::string_view what, std::string_view file) {
  if (text.size() > kIngestMaxTextBytes) {
    throw usage_error(fmt::format("'{}': {} is longer than {} bytes; shorten it", file, what, kIngestMaxTextBytes));
  }
}

}  // namespace distbench::history
