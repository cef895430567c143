// Reducing one timed phase's per-rank samples (gathered on the root) into a record's PhaseStats: per sample the
// -a aggregation across ranks, the summary over those, and the spread of each rank's own mean over ranks.
#pragma once

#include "core/measure/phase.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace distbench {

// Which per-rank figure a table shows (nccl-tests' -a).
enum class RankAverage { rank0, avg, min, max };
std::string_view name(RankAverage a);
// The spread's figure that `average` names.
double pick(RankAverage average, const RankSpread& spread);

struct ReducedPhase {
  PhaseStats stats;
  std::vector<double> rank_means;  // per rank: mean seconds per operation over its samples
};

// by_rank[r][i]: rank r's i-th sample, seconds per operation; all ranks hold the same number of samples.
ReducedPhase reduce_phase(std::string name, const std::vector<std::vector<double>>& by_rank, RankAverage average);

// The same from what a reduction leaves on the root (the sweep's, so that no rank's samples travel whole):
// `samples[i]`, the i-th sample already aggregated across ranks as -a says, and `rank_means[r]`, rank r's mean.
ReducedPhase phase_from(std::string name, std::vector<double> samples, std::vector<double> rank_means);

// The mean of one rank's samples (0 for none), as reduce_phase takes it.
double mean_of_samples(const std::vector<double>& samples);

}  // namespace distbench
