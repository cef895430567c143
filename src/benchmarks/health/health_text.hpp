// How a health check reads to people: the verdict per node, the link matrices, phase times and the Slurm lines for
// bad nodes (the console's and Markdown's sections), and the one-line summary. All from the records.
#pragma once

#include "core/report/layout.hpp"

#include <vector>

namespace distbench::health {

std::vector<TextSection> health_sections(const std::vector<Record>& records);
std::vector<SummaryItem> health_summary(const std::vector<Record>& records);

}  // namespace distbench::health
