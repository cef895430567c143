// A run given twice on one side of a file comparison: the gate's test counts runs (their medians are its
// observations), so five copies of one report would pass for five runs and fake the evidence a test needs.
#pragma once

#include "core/report/json_model.hpp"

#include <string_view>
#include <vector>

namespace distbench::compare {

// Throws usage_error naming the two when two runs of `runs` are one run: the same start time and the same samples in
// every case. `side_name` names them in the message ("baseline" -> "baseline 2").
void check_distinct_runs(const std::vector<ParsedReport>& runs, std::string_view side_name);

}  // namespace distbench::compare
