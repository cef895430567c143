// Distribution-free statistics of paired differences (one per round of an interleaved A/B run): the two-sided
// Wilcoxon signed-rank test, and the Hodges-Lehmann estimate of the differences' centre (the median of the Walsh
// averages) with its distribution-free confidence interval (Tukey). They assume the differences are symmetric about
// their centre, not that they are normal: a round hit by a preempted run moves the estimate by one rank, not by its
// size.
#pragma once

#include <cstddef>
#include <span>

namespace distbench::compare {

// Two-sided p-value that the differences are centred on 0. Zeros are dropped (Wilcoxon's convention); exact (the
// signed-rank distribution counted) when no two |differences| tie and at most 60 remain, else the normal
// approximation with the tie and continuity corrections. 1 when none is left.
double signed_rank_p(std::span<const double> differences);

// The smallest two-sided p the exact test can give with n differences: 2 / 2^n (all of one sign).
double smallest_signed_rank_p(std::size_t n);

// The fewest differences whose test can reject at `alpha` (8 at 0.01: 2 / 256 < 0.01).
std::size_t min_pairs_to_test(double alpha);

struct CentreEstimate {
  double estimate = 0;       // the median of the n (n + 1) / 2 Walsh averages (d_i + d_j) / 2, i <= j
  double low = 0, high = 0;  // the Walsh averages at the signed-rank critical ranks: a `confidence` interval
};

// Needs at least one difference. With too few differences for the confidence asked, the interval is the whole range
// of the Walsh averages.
CentreEstimate hodges_lehmann_centre(std::span<const double> differences, double confidence);

}  // namespace distbench::compare
