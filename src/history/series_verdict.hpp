// One series judged (the rules of `history check`, history_check.hpp): its change points, the window of newest runs,
// and its verdict with the reason, as a case of `distbench compare`.
//
//  - MISSING: the series has no point from its group's newest run (it was measured before, not now);
//  - NEW: its only run with the metric is the newest one;
//  - UNKNOWN: the newest run has no value of the metric, or the series has fewer than kMinRuns runs with it;
//  - SLOWER (FASTER): (a) change points start among the newest `window` runs, and the newest segment against the
//    segment before the first of them (with one change point: its own two segments) changed for the worse (better) by
//    more than the threshold, the time per operation by more than the floor, at p < max_p (Student's t, on logs); or
//    (b) no such change point decided it, and the newest run alone is beyond the runs of its segment before it (at
//    least kMinReferenceRuns of them): the prediction test at p < alpha, beyond the threshold and the floor;
//  - SAME otherwise, naming the rule that held it back. Too few runs in the newest segment for (b) and no change point
//    in the window: UNKNOWN.
#pragma once

#include "compare/comparison.hpp"
#include "history/history_check.hpp"
#include "history/series.hpp"

#include <cstddef>
#include <cstdint>

namespace distbench::history {

inline constexpr std::size_t kMinReferenceRuns = 5;             // runs before the newest in its segment, for (b)
inline constexpr std::size_t kMinRuns = kMinReferenceRuns + 1;  // runs with the metric to judge a series at all

struct SeriesJudgement {
  compare::CaseComparison comparison;
  SeriesCheck check;
};

// `newest_run`: the newest run of the series' group. Options are taken as valid (check_history validates them).
SeriesJudgement judge_series(const Series& s, std::int64_t newest_run, const CheckOptions& options);

}  // namespace distbench::history
