// How far apart the CPUs of the ranks that share a host were, at the start of a run and at its end: the time a cache
// line takes to go from one rank's CPU to another's (core/sys/cache_line_ping.hpp), between each host's first rank
// and every other rank of the host in turn. A shared host's scheduler moves its guests' CPUs between cores that share
// a cache and cores that do not, and sizes that fit in the caches then run slower, in every tool, with no steal time
// to show it (docs/measurements/2026-11-27-cpu-placement.md). The report keeps both readings
// ("cpu_distance.start", ".end"), and a run whose readings differ by kCpuDistanceWarnRatio or more says so, when
// both are placements (under kCpuDistanceSharedNs).
#pragma once

#include "core/comm/connector.hpp"
#include "core/report/run_info.hpp"
#include "core/sys/shared_page.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace distbench::cli {

// One reading over the job: the farthest pair of co-located ranks.
struct CpuDistance {
  std::optional<double> ns;  // one way; nullopt: not measured (see `why_not`)
  int first_rank = -1;       // the pair
  int second_rank = -1;
  int pairs = 0;  // pairs measured over all hosts
  std::string why_not;
};

// A run whose start and end readings differ by this factor or more warns that its CPUs moved.
inline constexpr double kCpuDistanceWarnRatio = 2.0;
// A reading of this many ns or more is a pair that shared one CPU (a context switch per trip: a loaded or
// oversubscribed host), not a placement: no warning then (the sweep's noise warning speaks for such a run).
inline constexpr double kCpuDistanceSharedNs = 1000.0;

class CpuPairProbe {
 public:
  // Collective, at start-up: each host with two or more ranks shares a page among them. Never throws: a host where
  // that fails leaves the readings unknown, with the reason.
  // Collective (inside `step`): every rank of a host maps the page its first rank creates.
  CpuPairProbe(Connector& connector, const ArmedStep& step);
  // Collective and bounded: each host's first rank pings each other rank of its host in turn, for at most `budget`
  // in all, then the root gathers the hosts' farthest pairs, waiting at most `budget` more (a rank that stopped
  // answering is left out). The root gets the reading, other ranks an empty one.
  CpuDistance measure(std::chrono::milliseconds budget);

 private:
  Connector& connector_;
  std::optional<SharedPage> page_;  // this host's page, when it has two or more ranks and the page was shared
  std::vector<int> host_ranks_;     // the ranks on this host, lowest first
  int index_ = 0;                   // this rank's place among them (0: the one that pings)
  std::string why_not_;             // why this host has no reading
  std::uint64_t readings_ = 0;      // how many measure() calls came before (each starts its pings above the last's)
};

// The report's facts from the two readings, and a warning ("cpu_distance") when two placements differ by the ratio
// above.
void note_cpu_distance(RunInfo& info, std::vector<Warning>& warnings, const CpuDistance& start, const CpuDistance& end);
// "42 ns one way between ranks 0 and 1 (the farthest of 1 pair)", or "unknown: <why>".
std::string cpu_distance_text(const CpuDistance& d);

}  // namespace distbench::cli
