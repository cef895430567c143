// How a health check reads to people: the verdict per node, the links (a summary, or the matrices), phase times and
// the Slurm lines for bad nodes (the console's and Markdown's sections), and the one-line summary. All from the
// records.
#pragma once

#include "core/report/layout.hpp"

#include <vector>

namespace distbench::health {

// `every_check`: the records hold every check (--detail): every node's verdict is listed and the link matrices are
// drawn; else only the nodes that are not healthy, and a summary of the links from each node's.
std::vector<TextSection> health_sections(const std::vector<Record>& records, bool every_check);
// The rows the console's table shows: the checks that are not healthy, but the suspects (figures measured among
// others: their re-tests alone decide, and are shown; a large cluster's noise makes many) and the verdicts (their
// section says them).
bool console_row(const Record& record);
std::vector<SummaryItem> health_summary(const std::vector<Record>& records);

}  // namespace distbench::health
