// What the human-readable views of a report (Markdown, HTML) show, as plain text cells: the records' table and the
// summary's items. Each view escapes and lays them out in its own way.
#pragma once

#include "core/report/json_model.hpp"

#include <string>
#include <utility>
#include <vector>

namespace distbench::views {

struct TableColumn {
  std::string title;     // a parameter's key, or a metric's key with its unit: "busbw_gbps (GB/s)"
  bool numeric = false;  // right-aligned
};

struct ResultsTable {
  std::vector<TableColumn> columns;
  std::vector<std::vector<std::string>> rows;  // one per record, a cell per column
};

// The parameters whose values differ between records, in layout order; `bytes` always, when the layout has it.
std::vector<std::string> varying_params(const ParsedReport& r);

// Columns: the varying parameters, every metric of the layout, the status ("skipped: why" for a skipped record).
ResultsTable results_table(const ParsedReport& r);

// A metric's key with its unit: "busbw_gbps (GB/s)"; the key alone for plain counts.
std::string metric_title(const MetricSpec& metric);

// A metric's value as its unit is shown elsewhere (times and bandwidths as the console does); "-" when not measured.
std::string metric_text(double value, const MetricSpec& metric);

// The summary's items as written (key, value as text; "-" for null).
std::vector<std::pair<std::string, std::string>> summary_items(const ParsedReport& r);

// The summary for people (the HTML page): each item's human name ("average bus bandwidth, float32 sum" for
// avg_busbw_gbps.float32.sum, the run's own words where it gave some), its value in words, and the key as written.
struct SummaryRow {
  std::string key, name, value;
};
std::vector<SummaryRow> summary_rows(const ParsedReport& r);

// The run in one line: tool and git sha, what ran, backend, ranks per host, status, when.
std::string run_facts(const ParsedReport& r);

}  // namespace distbench::views
