// Which series a command works on: compare's --filter rules on each series' case parameters, and the check that the
// newest run computed right.
#pragma once

#include "compare/case_filter.hpp"
#include "history/series.hpp"

#include <vector>

namespace distbench::history {

// The series whose parameters meet every condition. Throws usage_error for a condition on a field no series has.
std::vector<Series> filtered(std::vector<Series> series, const std::vector<compare::Condition>& filter);

// The series' newest run (the largest run id among their points) and the cases in which it counted wrong elements:
// "allreduce 8 B out-of-place (3 wrong), ..."; "" when none did.
std::string wrong_in_newest_run(const std::vector<Series>& series);

}  // namespace distbench::history
