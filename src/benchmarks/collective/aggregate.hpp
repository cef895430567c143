// Reduction of one case's per-rank samples into a CaseResult (root rank, after gathering).
#pragma once

#include "benchmarks/collective/plan.hpp"
#include "benchmarks/collective/case_result.hpp"

#include <vector>

namespace distbench::collective {

// samples_by_rank[r][i]: rank r's i-th sample, seconds per operation; all ranks hold the same number of samples.
// Fills `result`'s time, rank_time, time_shown, samples, algbw and busbw (bytes, nranks and collective must be set).
void aggregate_samples(const std::vector<std::vector<double>>& samples_by_rank, RankAverage average,
                       Collective collective, CaseResult& result);

}  // namespace distbench::collective
