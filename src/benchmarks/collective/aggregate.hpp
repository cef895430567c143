// Reduction of one case's per-rank samples into a CaseResult (root rank, after gathering).
#pragma once

#include "benchmarks/collective/case_result.hpp"
#include "benchmarks/collective/plan.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace distbench::collective {

// The statistic of a case's samples that its headline time is: the table's time (so algbw, busbw and the footer's
// average), the records' time_us metric and the nccl-tests JSON's time. distbench's own timing (sampled) shows the
// interquartile mean of the samples (Summary::iqm), each aggregated over ranks as -a says, so that a preempted sample
// cannot move a row (bench/aa_time_statistic.py); the peers' methods keep their own: nccl-tests' time per operation
// over all its timed blocks (as one long block), OSU's and IMB's averages (each rank's mean, then -a).
enum class TimeStatistic { interquartile_mean, mean };
TimeStatistic time_statistic(std::string_view timing);  // "sampled", "nccl-tests", "osu", "imb"
// The header's words for it: "interquartile mean of the samples (per sample: mean over ranks, -a avg)".
std::string time_statistic_text(std::string_view timing, RankAverage average);
// The headline time in seconds per operation of a case's time phase as `timing` shows it: the one place that picks
// it (CaseResult::time_shown and the record's time_us metric hold it).
double headline_time(const PhaseStats& time, RankAverage average, std::string_view timing);

// samples_by_rank[r][i]: rank r's i-th sample, seconds per operation; all ranks hold the same number of samples.
// Fills `result`'s time, rank_time, time_shown, samples, algbw and busbw (bytes, nranks, collective and timing must be
// set).
void aggregate_samples(const std::vector<std::vector<double>>& samples_by_rank, RankAverage average,
                       Collective collective, CaseResult& result);
// The same from the phase already reduced across ranks (core/comm/phase_over_ranks.hpp).
void aggregate_phase(ReducedPhase phase, RankAverage average, Collective collective, CaseResult& result);

// What the sweep keeps of a case once its records are made: no rank's mean, and of the OS counters only the ranks
// with the most page faults and the most context switches (the most over ranks stays what it was: the warnings
// judge it), so that O(cases), not O(ranks x cases), stays on the root.
CaseResult without_rank_figures(CaseResult r);

}  // namespace distbench::collective
