// What `distbench history list`, `runs`, `show` and `export` print: views of the history's contents. Untrusted text
// (labels, machines, file names) is escaped as each format needs.
#pragma once

#include "history/history_db.hpp"

#include <string>
#include <vector>

namespace distbench::history {

// Each series: its group (a heading per group), label, runs and newest time per operation.
std::string series_list_text(const std::vector<Series>& series);
std::string series_list_json(const std::vector<Series>& series);  // with each key, for `show`
std::string runs_text(const std::vector<RunRow>& runs);
std::string runs_json(const std::vector<RunRow>& runs);
// Each series' points, oldest first.
std::string series_points_text(const std::vector<Series>& series);
// Every point with its run's metadata: CSV (a header, a line a point) or JSON ({"runs": [...], "series": [...]}).
std::string export_csv(const std::vector<Series>& series, const std::vector<RunRow>& runs);
std::string export_json(const std::vector<Series>& series, const std::vector<RunRow>& runs);

}  // namespace distbench::history
