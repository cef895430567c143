// Views of one report read back from JSON (`distbench report`): Markdown for a pull-request comment, CSV for a
// spreadsheet, a self-contained HTML page (inline CSS and SVG plots; no script, nothing fetched) for people. Each is
// a pure function of the parsed report; every text taken from the report is escaped for its format.
#pragma once

#include "core/report/json_model.hpp"

#include <string>

namespace distbench::views {

// `## distbench <title>`, a line of run facts, a table (the parameters that vary across records, every metric of
// the layout with its unit, the status), the summary and the warnings.
std::string report_markdown(const ParsedReport& r);

// The CSV the run's --csv would have written: csv_header and a csv_line per record.
std::string report_csv(const ParsedReport& r);

// The run's metadata (tool, git sha, argv, status, backend, ranks and hosts, versions, environment variables),
// warnings, summary, plots of the main metrics against the size, and the table of the Markdown view.
std::string report_html(const ParsedReport& r);

}  // namespace distbench::views
