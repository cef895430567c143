// What a latency run measures: validated options, independent of how they were typed.
#pragma once

#include "core/measure/stopping.hpp"
#include "core/report/per_rank.hpp"

#include <cstdint>
#include <vector>

namespace distbench::latency {

struct LatencyPlan {
  std::vector<std::uint64_t> sizes;  // message bytes
  int warmup_iters = 5;
  StoppingRule stopping;
  // osu_latency's counts (osu_counts.hpp) where the user gave none: its untimed round trips unless -w was given, and
  // at least its timed ones unless -n, --max-noise or --max-time chose how many samples to take; the timed ones stop
  // short of its count once they would outlast osu_max_time_s (by the calibration), so a large message cannot take
  // minutes.
  bool osu_warmup = true;
  bool osu_timed = true;
  double osu_max_time_s = 1.0;
  bool check = true;
  double timeout_s = 300.0;
  PerRankOptions per_rank;  // --per-rank, --per-rank-file
};

}  // namespace distbench::latency
