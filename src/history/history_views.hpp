// The views of a history check, one per format of `distbench compare` (history_view dispatches), and the words they
// share: a figure of the metric, a change with its interval, a p-value, what the gate's rules are.
#pragma once

#include "history/history_check.hpp"

#include <string>
#include <vector>

namespace distbench::history {

std::string history_text(const HistoryCheck& check, const std::vector<Series>& series);
std::string history_markdown(const HistoryCheck& check, const std::vector<Series>& series);
std::string history_json(const HistoryCheck& check, const std::vector<Series>& series);
std::string history_junit(const HistoryCheck& check, const std::vector<Series>& series);
std::string history_html(const HistoryCheck& check, const std::vector<Series>& series);

// "123.40" (us) or "11.25" (GB/s); "-" when not finite.
std::string metric_words(const compare::Comparison& c, double v);
// "+12.1% [+8.0%, +16.3%]", "+12.1%" without an interval, "-" without a change.
std::string interval_words(double change, double low, double high);
// "0.0031", "2e-05", "-".
std::string p_figure(double p);
// REGRESSION, NOT JUDGED or OK.
std::string outcome_word(const compare::Comparison& c);
// The rules in a sentence: the detector, the window, the newest run's test, threshold and floor.
std::string check_rules(const HistoryCheck& check);
// Each change point of a series: "run 27 (v2) +12.1% [+8.0%, +16.3%] p 2e-05", joined by "; "; "none".
std::string change_point_words(const SeriesCheck& s, const Series* series);
// The series of the check by key (nullptr where `series` lacks one).
std::vector<const Series*> series_of(const HistoryCheck& check, const std::vector<Series>& series);

}  // namespace distbench::history
