// What a benchmark tells the reporters at begin(): its name and config, the shape of its records (parameters,
// phases, metrics with units, per-rank figures: the JSON and CSV columns) and its table (the console and Markdown
// columns). Reporters only format what this says; they know nothing of any benchmark.
//
// Includes nlohmann/json (the config): include it where reports are made, not from widely used headers.
#pragma once

#include "core/report/per_rank.hpp"
#include "core/report/record.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace distbench {

// How a table cell shows a value (see text.hpp for each).
enum class CellFormat {
  text,       // a parameter as it is (left-aligned in Markdown)
  integer,    // a parameter or metric as a whole number
  time_us,    // microseconds: time_text
  bandwidth,  // GB/s: bandwidth_text
  per_op,     // a count per operation: count_text
  checked,    // a whole count, "N/A" when not measured (NaN): #wrong
  number,     // a figure in any unit, 4 significant digits
  noise,      // a percentage with one decimal, marked '*' when the record missed its noise target (--max-noise)
  timestamp,  // seconds since the Unix epoch: timestamp_text (ISO 8601, UTC)
  nccl_type,  // an element type's name as nccl-tests' tables print it (float, half, double; left-aligned in Markdown)
  fitted,     // a figure fitted to the column's width as nccl-tests fits its times and bandwidths: fitted_text
};

// Each format's name in a JSON report's table ("time_us"), in the enum's order.
inline constexpr std::string_view kCellFormatNames[] = {"text",      "integer",   "time_us", "bandwidth",
                                                        "per_op",    "checked",   "number",  "noise",
                                                        "timestamp", "nccl_type", "fitted"};
static_assert(std::size(kCellFormatNames) == static_cast<std::size_t>(CellFormat::fitted) + 1);
inline std::string_view name(CellFormat f) { return kCellFormatNames[static_cast<std::size_t>(f)]; }

struct ColumnSpec {
  std::string key;    // a parameter or metric of the records
  std::string title;  // console: first header line
  std::string unit;   // console: second header line, e.g. "(us)"
  int width = 8;      // console: right-aligned in this many characters
  CellFormat format = CellFormat::text;
  std::string md_title;  // Markdown header cell (e.g. "time (us)")
  // A detail column (--show-faults): blank, not "-", when its record is missing or was not measured.
  bool detail = false;
  // Set: `key` is a statistic of this phase's samples rather than a metric: "median_us", "mean_us", "p99_us",
  // "noise_pct" (the half-width of the median's 95% confidence interval, in %, as --max-noise judges it) or "samples".
  std::string phase = {};
  // In nccl-tests' layout (TableLayout::nccl_tests_layout): a column of distbench's own, printed after nccl-tests'
  // columns (a key column after both groups, a value column after every group's own), so that nccl-tests' columns
  // keep their positions. The other views show it in its place.
  bool trailing = false;
};

struct TableLayout {
  std::vector<ColumnSpec> key_columns;  // taken from the first record of a row
  // A parameter whose values sit side by side (e.g. "placement"), or several joined by '+' ("placement+timing"),
  // whose values, joined by a space, name a group ("in-place osu"); "": none.
  std::string split_key;
  std::vector<std::string> split_values;  // the groups, in order
  std::vector<ColumnSpec> value_columns;  // once per group
  // The console table laid out as nccl-tests lays out its own, so that its readers read this one: two spaces between
  // columns and before each group, rows from the line's first character, the header lines' "# " over the first
  // column's padding and their trailing space kept, the captions' line three characters short of the titles'. Its
  // rows keep nccl-tests' positions: the key columns, then two groups' value columns (a group not measured shows
  // "nan" and "N/A", as a float parser reads them), then the trailing columns; a row with nothing measured is a
  // comment line. See docs/collectives.md, "The table: columns and time".
  bool nccl_tests_layout = false;
  // In nccl-tests' layout: a key column the console shows as a comment line ("# cycle 2") before the rows where its
  // value changes, not as a column (nccl-tests' -N repeats its rows alike); "": none. The other views show a column.
  std::string console_section_key;
  // In nccl-tests' layout: the two groups the console shows in nccl-tests' places (out of place, in place), each
  // whether it ran or not (then "nan"); empty: the first two of split_values. Console only (not in the reports).
  std::vector<std::string> nccl_tests_groups;
};

// The unit of a metric that is a moment: seconds since the Unix epoch (views show it as timestamp_text).
inline constexpr std::string_view kUnixTimeUnit = "s since epoch";

struct MetricSpec {
  std::string key;   // JSON key and CSV column, e.g. "busbw_gbps"
  std::string unit;  // e.g. "GB/s", "us", "1" for counts
  std::string description;
};

// A metric declared once, with its column: its key, unit and meaning (the records' layout: JSON, CSV) and how a table
// shows it (console, Markdown). A benchmark declares each of its metrics so (constexpr) beside its record builder, and
// its records, layout, table and readers take the key and the rest from that one declaration.
struct MetricColumn {
  const char* key;          // JSON key and CSV column, e.g. "busbw_gbps"
  const char* unit;         // e.g. "GB/s", "us", "1/op"
  const char* description;  // the layout's words for it
  const char* title;        // console: first header line; "": a metric of the records that no table shows
  const char* caption;      // console: second header line, e.g. "(us)"
  int width = 8;            // console: right-aligned in this many characters
  CellFormat format = CellFormat::number;
  const char* md_title = "";  // Markdown header cell
  bool detail = false;        // see ColumnSpec::detail

  MetricSpec spec() const { return {key, unit, description}; }
  ColumnSpec column() const { return {key, title, caption, width, format, md_title, detail}; }
};

struct RecordLayout {
  std::vector<std::string> params;       // every parameter of a record, in order
  std::vector<std::string> phases;       // the timed phases of a sample, in order
  std::vector<MetricSpec> metrics;       // in order
  std::vector<MetricSpec> rank_figures;  // each rank's own figures, in order
};

// A line of the run's summary: a value for tools (JSON) and its words for people (console, Markdown).
struct SummaryItem {
  std::string key;    // JSON key, e.g. "avg_busbw_gbps"
  std::string label;  // "Avg bus bandwidth"
  double value = kNotMeasured;
  std::string text;  // "2.92 GB/s"
  // The console's line(s) for it, when not "# label: text": the collectives' first two lines are nccl-tests' own
  // footer ("# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 2.91667 ", "#"), byte for byte.
  std::string console = {};
};

// A block of text a benchmark adds after its table (health: the verdict per node, the link matrix): preformatted
// lines, shown as they are on the console and in a code block in Markdown. Tools read the records instead.
struct TextSection {
  std::string title;
  std::vector<std::string> lines;
};

// A metric the views plot against the message size (the records' `bytes`), and the phase whose spread over ranks
// shades its line ("": none; the spread is each rank's mean time, so it shades only a time of that phase in us).
struct PlotChoice {
  std::string metric;
  std::string band_phase;
};

struct RunDescription {
  std::string benchmark;                                             // the records' kind: "collective", "latency"
  std::string title;                                                 // what ran, for headings: "allreduce", "latency"
  nlohmann::ordered_json config = nlohmann::ordered_json::object();  // keys in the order written
  RecordLayout records;
  TableLayout table;
  std::vector<std::string> console_preamble;  // header lines after the tool's line, without the leading "# "
  // What ran, in short phrases ("backend mpi", "4 ranks, per host: 2 (2 hosts)"), kept in the JSON report; the
  // Markdown line under the heading joins them with " · ".
  std::vector<std::string> facts;
  std::vector<PlotChoice> plots;  // none: the views plot the first metric, when the records have a size
  // The run's summary from its records so far (the console and Markdown footers, the JSON "summary").
  std::function<std::vector<SummaryItem>(const std::vector<Record>&)> summarize;
  // Sections after the table, from the records so far (none when unset).
  std::function<std::vector<TextSection>(const std::vector<Record>&)> sections;
  // The rows the console's table prints (a row: when one of its records passes); unset: every row. Files keep every
  // row (health prints only the checks that are not healthy).
  std::function<bool(const Record&)> console_row;
  // How much of each rank's figures the reporters keep of every record added (--per-rank); unset: records as given.
  PerRankPolicy per_rank;
};

}  // namespace distbench
