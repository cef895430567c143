#include "core/report/startup.hpp"

#include "core/report/text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace distbench {

StartupRecord startup_record(std::vector<StartupRank> ranks, int list_up_to) {
  StartupRecord s;
  std::vector<int> numbers;
  std::vector<std::string> hosts;
  for (const StartupRank& r : ranks) {
    numbers.push_back(r.rank);
    hosts.push_back(r.host);
  }
  std::vector<double> values(ranks.size());
  for (std::size_t p = 0; p < kStartupPhases.size(); ++p) {
    for (std::size_t i = 0; i < ranks.size(); ++i) values[i] = ranks[i].seconds[p];
    s.phases.push_back(distribution_over_ranks(values, numbers, hosts));
  }
  for (std::size_t i = 0; i < ranks.size(); ++i) values[i] = ranks[i].late_s;
  s.late = distribution_over_ranks(values, numbers, hosts);
  if (static_cast<long long>(ranks.size()) <= list_up_to) s.ranks = std::move(ranks);
  return s;
}

namespace {

// "1.52 s", "12 ms", "340 us": what a start-up figure needs; a figure read from a damaged report stays short
// (fixed_text).
std::string duration_text(double s) {
  if (!std::isfinite(s)) return "-";
  if (s >= 1) return fixed_text(s, 2) + " s";
  if (s >= 1e-3) return fmt::format("{:.0f} ms", s * 1e3);
  return fmt::format("{:.0f} us", s * 1e6);
}

std::string who(const RankAtEnd& r) {
  return r.host.empty() ? fmt::format("rank {}", r.rank) : fmt::format("rank {} ({})", r.rank, r.host);
}

}  // namespace

std::optional<Warning> late_start_warning(const StartupRecord& s) {
  if (!s.measured() || s.late.ranks == 0 || !(s.late.max >= kLateStartWarnSeconds)) return std::nullopt;
  const RankAtEnd& late = s.late.highest.front();
  return Warning{"late_start",
                 fmt::format("rank {} began {} after the first: a slow node or launcher (the report's startup)",
                             late.rank, duration_text(s.late.max)),
                 fmt::format("{} began {} after the first rank (the job waited for it to form): its node or its "
                             "launcher is slow to start processes (a loaded or swapping node, a slow shared file "
                             "system); the report's 'startup' names each phase's slowest ranks",
                             who(late), duration_text(s.late.max))};
}

std::vector<std::string> startup_lines(const StartupRecord& s) {
  if (!s.measured()) return {};
  const RankDistribution& total = s.phases[kStartupTotal];
  const std::string first = total.ranks == 0 ? std::string("start-up: ")
                                             : fmt::format("start-up: {} to the first collective, slowest {}; ",
                                                           duration_text(total.max), who(total.highest.front()));
  std::string parts;
  for (std::size_t p = 0; p < kStartupTotal; ++p) {
    const RankDistribution& d = s.phases[p];
    if (d.ranks == 0) continue;
    std::string name(kStartupPhases[p].key.substr(0, kStartupPhases[p].key.size() - 2));
    for (char& c : name) c = c == '_' ? ' ' : c;
    parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", name, duration_text(d.max));
  }
  std::vector<std::string> lines{first + parts + " (each phase's slowest rank)"};
  if (s.late.ranks > 0 && s.late.max >= 0.5) {
    lines.push_back(fmt::format("started late: {} began {} after the first rank (median {})",
                                who(s.late.highest.front()), duration_text(s.late.max), duration_text(s.late.median)));
  }
  return lines;
}

}  // namespace distbench
