// Reduction of one case's per-rank samples into a CaseResult (root rank, after gathering).
#pragma once

#include "benchmarks/collective/case_result.hpp"
#include "benchmarks/collective/plan.hpp"

#include <vector>

namespace distbench::collective {

// samples_by_rank[r][i]: rank r's i-th sample, seconds per operation; all ranks hold the same number of samples.
// Fills `result`'s time, rank_time, time_shown, samples, algbw and busbw (bytes, nranks and collective must be set).
void aggregate_samples(const std::vector<std::vector<double>>& samples_by_rank, RankAverage average,
                       Collective collective, CaseResult& result);
// The same from the phase already reduced across ranks (core/comm/phase_over_ranks.hpp).
void aggregate_phase(ReducedPhase phase, RankAverage average, Collective collective, CaseResult& result);

// What the sweep keeps of a case once its records are made: no rank's mean, and of the OS counters only the ranks
// with the most page faults and the most context switches (the most over ranks stays what it was: the warnings
// judge it), so that O(cases), not O(ranks x cases), stays on the root.
CaseResult without_rank_figures(CaseResult r);

}  // namespace distbench::collective
