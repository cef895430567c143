// Start-up as health judges it: each node's lateness, the latest of its ranks' (core/report/startup.hpp), held to an
// absolute bound. A node that begins seconds after the others holds up every job it is in: a loaded or swapping
// node, a slow local disk or shared file system, a launcher daemon that answered late.
#pragma once

#include "benchmarks/health/evaluate.hpp"
#include "benchmarks/health/verdict.hpp"
#include "core/report/startup.hpp"

#include <vector>

namespace distbench::health {

// One check a node ("start.late_s", seconds): degraded past `late_start_s`. Ranks without a figure are left out; a
// node none of whose ranks has one gets no check.
std::vector<Check> start_checks(const std::vector<StartupRank>& ranks, const Topology& topo, double late_start_s);

}  // namespace distbench::health
