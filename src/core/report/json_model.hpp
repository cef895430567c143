// The JSON form of a report (schema: reports/SCHEMA.md). JSON is the source of truth of a run; `compare` and other
// tools read reports back with parse_report, which reads this version (4), version 3 (the same, but every record
// keeps every rank's figures: no "rank_summary"), version 2 (version 3 without the table and the words the views
// show: facts, summary items, sections) and the collective-only version 1.
// Times are seconds in the model and microseconds in JSON; metrics are in their layout's unit in both. Objects keep
// the order they were written in (nlohmann::ordered_json), so that a report reads top-down like the table.
//
// Includes nlohmann/json: include this header only where JSON is built or read.
#pragma once

#include "core/measure/stopping.hpp"
#include "core/report/layout.hpp"
#include "core/report/record.hpp"
#include "core/report/run_info.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace distbench {

using ordered_json = nlohmann::ordered_json;

// The major version written; a reader rejects any other major it does not know.
inline constexpr int kReportSchemaVersion = 4;

ordered_json record_json(const Record& r);

// A record's parameters as its JSON writes them (an object, in the record's order).
ordered_json params_json(const std::vector<Param>& params);
// A figure as a record's metrics write it: whole values as integers, NaN and infinities as null.
ordered_json figure_json(double value);
// A double as JSON as it is; NaN and infinities, which have no JSON form, as null.
ordered_json json_number(double value);

// {"code", "message"} and "detail" where it has one.
ordered_json warning_json(const Warning& w);
ordered_json run_info_json(const RunInfo& info);  // the run's top-level fields, "environment" and "warnings"

ordered_json layout_json(const RecordLayout& layout);

// A benchmark's stopping rule as its config writes it: samples, max_noise, min_samples, max_time_s.
ordered_json stopping_json(const StoppingRule& rule);

// The summary block: counts every report has (records, measured, skipped, noise_missed, wrong when checked)
// followed by the benchmark's own items.
ordered_json summary_json(const std::vector<Record>& records, const std::vector<SummaryItem>& items);

// The table a run shows (TableLayout) and `rows`, how many of the records each of its rows holds.
ordered_json table_json(const TableLayout& table, const std::vector<std::size_t>& rows);

// The whole report; `rows` as the reporter was given them (empty: a row per record).
ordered_json make_report_json(const RunInfo& info, const RunDescription& description,
                              const std::vector<Record>& records, const std::vector<std::size_t>& rows = {});

struct ParsedReport {
  int schema_version = 0;
  RunInfo info;
  std::string benchmark;  // the records' kind ("collective" for every version 1 report)
  std::string title;
  ordered_json config;
  RecordLayout layout;
  std::vector<Record> records;
  ordered_json summary;  // as written (empty for version 1, which had none)
  // Version 3 on; empty before: what the views show, as the run described it.
  std::vector<std::string> facts;          // what ran, in short phrases
  TableLayout table;                       // the table the console and Markdown showed
  std::vector<std::size_t> rows;           // records per row of that table; empty: one each (rows that did not fit)
  std::vector<SummaryItem> summary_items;  // the summary in words (value, label, text; no console lines)
  std::vector<TextSection> sections;       // the text after the table
  // What the views plot against the size: as written (version 3), or as the views chose by the benchmark before.
  std::vector<PlotChoice> plots;

  // Whether the report keeps its table (version 3 on), so that its views can show it as the run did.
  bool has_table() const { return !table.key_columns.empty() || !table.value_columns.empty(); }
};

// Reads a report of version 1 to 4 (json_reader.cpp). Throws distbench::usage_error (one line) on malformed text
// (with its byte offset), a missing or mistyped field or a number out of its field's range (naming the field by its
// path, e.g. "field 'records[3].samples' must be a non-negative integer, found -1"), or a schema_version this build
// does not read.
ParsedReport parse_report(std::string_view text);

}  // namespace distbench
