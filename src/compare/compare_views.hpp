// The views of a comparison: a text table for the terminal, Markdown for a pull-request comment, JSON for tools,
// JUnit XML for CI (one test case per benchmark case, SLOWER as a failure) and a self-contained HTML page.
#pragma once

#include "compare/comparison.hpp"

#include <string>
#include <vector>

namespace distbench::compare {

struct CompareSources {
  std::vector<std::string> baselines;  // file names, as given
  std::string candidate;
};

std::string compare_text(const Comparison& c);
std::string compare_markdown(const Comparison& c, const CompareSources& sources);
std::string compare_json(const Comparison& c, const CompareSources& sources);
std::string compare_junit(const Comparison& c, const CompareSources& sources);
std::string compare_html(const Comparison& c, const CompareSources& sources);

// What both gates' views (compare's and history check's) share: a case's label, parameters, verdict, reason and figures
// as JSON (the keys both write first, in that order), the verdict counts with the geometric mean of the ratios, and
// JUnit's failures and skips (a MISSING case fails the gate without --allow-missing, so it is a failure there too).
nlohmann::ordered_json case_figures_json(const CaseComparison& k);
nlohmann::ordered_json verdict_counts_json(const Comparison& c);
struct JunitCounts {
  std::size_t failures = 0, skipped = 0;
};
JunitCounts junit_counts(const Comparison& c);

// What makes a case SLOWER, in words, for the mode the comparison ran in (the views' criteria line).
std::string compare_criteria(const Comparison& c);

}  // namespace distbench::compare
