// The Reports group's per-rank options, for the benchmarks whose records keep each rank's figures (the collectives,
// latency, zero, train): --per-rank auto|all|summary and --per-rank-file PATH (core/report/per_rank.hpp).
#pragma once

#include "core/report/per_rank.hpp"

namespace CLI {
class App;
}

namespace distbench::cli {

void add_per_rank_options(CLI::App& app, PerRankOptions& options);

}  // namespace distbench::cli
