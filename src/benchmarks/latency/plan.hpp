// What a latency run measures: validated options, independent of how they were typed.
#pragma once

#include "core/measure/stopping.hpp"

#include <cstdint>
#include <vector>

namespace distbench::latency {

struct LatencyPlan {
  std::vector<std::uint64_t> sizes;  // message bytes
  int warmup_iters = 5;
  StoppingRule stopping;
  bool check = true;
  double timeout_s = 300.0;
};

}  // namespace distbench::latency
