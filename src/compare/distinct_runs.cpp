#include "compare/distinct_runs.hpp"

#include "compare/case_pool.hpp"
#include "core/error.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace distbench::compare {
namespace {

// A fingerprint of what a run measured: its start time and every case's samples (hashed, so memory stays one string
// per case whatever the number of runs). Equal fingerprints are then confirmed on the samples themselves.
std::size_t run_fingerprint(const ParsedReport& run) {
  std::size_t h = std::hash<std::string>{}(run.info.start_time);
  for (const Record& r : run.records) {
    std::string text;
    for (double x : detail::time_samples_us(r)) text += fmt::format("{:a},", x);
    h = h * 1'000'003 ^ std::hash<std::string>{}(text);
  }
  return h;
}

bool same_run(const ParsedReport& a, const ParsedReport& b) {
  if (a.info.start_time != b.info.start_time || a.records.size() != b.records.size()) return false;
  for (std::size_t i = 0; i < a.records.size(); ++i) {
    if (detail::time_samples_us(a.records[i]) != detail::time_samples_us(b.records[i])) return false;
  }
  return true;
}

}  // namespace

void check_distinct_runs(const std::vector<ParsedReport>& runs, std::string_view side_name) {
  std::multimap<std::size_t, std::size_t> seen;  // fingerprint -> run index
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::size_t f = run_fingerprint(runs[i]);
    for (auto [it, end] = seen.equal_range(f); it != end; ++it) {
      if (!same_run(runs[it->second], runs[i])) continue;
      throw usage_error(fmt::format(
          "{0} {1} and {0} {2} are one run given twice (the same start time and samples): the gate's test counts "
          "runs, so a copy would pass for evidence it is not; give each run once",
          side_name, it->second + 1, i + 1));
    }
    seen.emplace(f, i);
  }
}

}  // namespace distbench::compare
