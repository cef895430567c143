// What the reports keep of a health check (--detail): every check, or a record set that grows with the nodes, not
// with the pairs of nodes. The verdicts are made from every check either way.
#pragma once

#include "benchmarks/health/verdict.hpp"

#include <vector>

namespace distbench::health {

// The checks of one phase that the reports keep when they do not keep every check: each check that is not healthy
// (suspects included); each healthy check about a node, the job or a phase; of the healthy checks about ranks, one per
// node, phase and metric, its worst rank's (the lowest bandwidth, the highest count or time); no healthy link
// (link.bandwidth_gbps, link.latency_us: the node summaries of links stand for them). In the order given.
std::vector<Check> kept_checks(const std::vector<Check>& checks);

}  // namespace distbench::health
