#include "benchmarks/health/kept_checks.hpp"

#include <cmath>
#include <map>
#include <tuple>

namespace distbench::health {
namespace {

bool is_link(const Check& c) { return c.metric == "link.bandwidth_gbps" || c.metric == "link.latency_us"; }

bool is_about_a_rank(const Check& c) { return c.subject.rfind("rank ", 0) == 0; }

// Of two figures of a metric, the worse: a bandwidth's lower, any other figure's (counts, times) higher; a figure
// not measured is worse than any.
bool worse_figure(const Check& a, const Check& b) {
  if (std::isnan(a.value) != std::isnan(b.value)) return std::isnan(a.value);
  return a.unit == "GB/s" ? a.value < b.value : a.value > b.value;
}

}  // namespace

std::vector<Check> kept_checks(const std::vector<Check>& checks) {
  using Key = std::tuple<std::string, std::string, std::string>;  // phase, host, metric
  std::map<Key, std::size_t> worst_rank;                          // the index of its worst healthy check
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const Check& c = checks[i];
    if (c.status != Status::healthy || !is_about_a_rank(c)) continue;
    const auto [at, added] = worst_rank.try_emplace({c.phase, c.host, c.metric}, i);
    if (!added && worse_figure(c, checks[at->second])) at->second = i;
  }
  std::vector<Check> out;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const Check& c = checks[i];
    if (c.status == Status::healthy) {
      if (is_link(c)) continue;
      if (is_about_a_rank(c) && worst_rank.at({c.phase, c.host, c.metric}) != i) continue;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace distbench::health
