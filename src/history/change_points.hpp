// Change points of a series: E-Divisive means (Matteson & James 2014) made deterministic as Apache Otava (formerly
// Hunter, Fleming et al. 2023) does it, with a t-test in place of the permutation test.
//
// On the log of the values (a relative change is a shift; for a bandwidth the log is minus the log time plus a
// constant, so time and bandwidth find the same points):
//  1. in a segment (the whole series first), the candidate is the split maximising the energy statistic
//     (history/energy_split.hpp) among those leaving both sides at least min_segment points;
//  2. it stands when Student's t-test between the two sides gives p < max_p; then both sides are searched the same way;
//  3. pruning: each change point is tested again between its neighbouring segments (which may have grown), and the
//     weakest one whose p is no longer below max_p is removed, until every one passes.
// max_p is the false alarm rate of one test; the split tested is the best of many, so a series without change finds
// one more often than that (the tests measure how often). min_segment bounds how short a segment may be: a single
// outlier is never a segment, and a step is found only once min_segment runs followed it.
//
// Cost: each split search is O(L^2) in its segment's length L with incremental sums (never O(L^3)), and the segments
// of one level of the recursion partition the series, so a series of n points costs O(n^2) per level found: at 1,000
// points about 10^6 absolute differences a level, milliseconds; the t-tests are O(n) each.
#pragma once

#include "history/history_check.hpp"

#include <span>
#include <vector>

namespace distbench::history {

// The change points of `log_values` (ChangePoint::index into them; `run` left 0), oldest first, each with its p
// against its neighbouring segments, the segments' geometric means (exp of the mean log: the metric's units), and the
// change after / before - 1 with its Student interval at `confidence`, exponentiated. Expects min_segment >= 2.
std::vector<ChangePoint> find_change_points(std::span<const double> log_values, const DetectorOptions& options,
                                            double confidence);

}  // namespace distbench::history
