// Which series a command works on: compare's --filter rules on each series' case parameters.
#pragma once

#include "compare/case_filter.hpp"
#include "history/series.hpp"

#include <vector>

namespace distbench::history {

// Throws usage_error for a condition on a field no series has (none, when there are no series).
void check_filter_fields(const std::vector<Series>& series, const std::vector<compare::Condition>& filter);

// Whether the series' parameters meet every condition.
bool passes(const Series& s, const std::vector<compare::Condition>& filter);

// The series that pass the filter, after check_filter_fields.
std::vector<Series> filtered(std::vector<Series> series, const std::vector<compare::Condition>& filter);

}  // namespace distbench::history
