#include "benchmarks/health/levels.hpp"

#include "benchmarks/health/plan.hpp"
#include "core/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace distbench::health {
namespace {

// The long level measures each figure this many times longer (counts and the bandwidth probes' minimum time).
constexpr int kLongProbeFactor = 3;

}  // namespace

std::string_view name(Level level) {
  switch (level) {
    case Level::quick: return "quick";
    case Level::standard: return "standard";
    case Level::long_run: return "long";
  }
  return "?";
}

std::optional<Level> parse_level(std::string_view text) {
  for (Level l : {Level::quick, Level::standard, Level::long_run}) {
    if (name(l) == text) return l;
  }
  return std::nullopt;
}

Level phase_level(std::string_view phase) {
  const auto* row =
      std::find_if(kPhaseLevels.begin(), kPhaseLevels.end(), [&](const PhaseLevel& p) { return p.phase == phase; });
  if (row == kPhaseLevels.end()) throw failure(fmt::format("health phase {} has no level (levels.hpp)", phase));
  return row->level;
}

bool phase_runs(const HealthPlan& plan, std::string_view phase) {
  if (phase == "soak") return plan.soak_seconds > 0;
  return phase_level(phase) <= plan.level;
}

void apply_level(HealthPlan& plan, std::optional<double> soak_seconds) {
  plan.soak_seconds = soak_seconds.value_or(plan.level == Level::long_run ? kLongSoakSeconds : 0.0);
  if (plan.level != Level::long_run) return;
  plan.copy_repetitions *= kLongProbeFactor;
  plan.min_probe_seconds *= kLongProbeFactor;
  plan.allreduce_repetitions *= kLongProbeFactor;
  plan.latency_round_trips *= kLongProbeFactor;
  plan.straggler_iterations *= kLongProbeFactor;
}

std::optional<std::string> untested_reason(std::string_view phase, std::size_t nodes, int ranks) {
  if (nodes == 1) {
    if (phase == "clock") return "clock: not tested: one node (skew is measured between nodes' clocks)";
    if (phase == "links") return "links: not tested: one node (a link joins two nodes)";
    if (phase == "isolation") return "isolation: not tested: one node (it re-tests links alone)";
  }
  if (ranks == 1 && phase == "stragglers") return "stragglers: not tested: one rank (nothing to be late against)";
  return std::nullopt;
}

}  // namespace distbench::health
