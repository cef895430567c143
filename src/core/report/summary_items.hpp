// Summary lines that several benchmarks end their reports with.
#pragma once

#include "core/report/layout.hpp"

#include <string>
#include <vector>

namespace distbench {

// Key "wrong": the sum of the `wrong` metric over the records that ran ("ok") and were checked, or "not checked"
// when none was. `label` says what was counted ("Wrong elements", "Wrong bytes").
SummaryItem wrong_item(const std::vector<Record>& records, std::string label);

}  // namespace distbench
