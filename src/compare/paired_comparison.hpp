// The interleaved gate's statistics: the baseline and the candidate measured alternately, round by round, on the same
// machine in one job, so that what drifts between rounds (another tenant, the clock, the cache) hits both sides
// alike. A case's evidence is one paired difference per round, log(candidate run's median / baseline run's median),
// judged by the Wilcoxon signed-rank test and the Hodges-Lehmann estimate of their centre with its confidence
// interval: the unit of noise is the run, and the pairing removes the run-to-run drift that a pooled comparison of
// runs taken at different times cannot.
#pragma once

#include "compare/comparison.hpp"

#include <vector>

namespace distbench::compare {

// `baseline[i]` and `candidate[i]` are round i's runs (the same count a side). Throws as compare_reports does (reports
// of other benchmarks, world sizes or backends; a run that did not complete; nothing that could be judged). A case
// must be in every run of both sides to be judged; one missing from some runs is UNKNOWN, one missing from every
// candidate run MISSING.
Comparison compare_rounds(const std::vector<ParsedReport>& baseline, const std::vector<ParsedReport>& candidate,
                          const CompareOptions& options);

}  // namespace distbench::compare
