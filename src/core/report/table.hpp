// The cells of the human-readable tables (console, Markdown), from the benchmark's TableLayout: formatting only,
// no writing, so that both views say the same thing the same way.
#pragma once

#include "core/report/layout.hpp"
#include "core/report/record.hpp"

#include <string>
#include <vector>

namespace distbench {

// One record's value for a column, formatted as the column says.
std::string cell_text(const Record& record, const ColumnSpec& column);

struct TableRow {
  std::vector<std::string> keys;                 // the key columns, from the row's first record
  std::vector<std::vector<std::string>> groups;  // per group (split value), the value columns
};

// A row's cells: a group whose record is missing shows "-" (blank in detail columns); one that was not measured
// shows its status in the first column and leaves the rest blank.
TableRow table_row(const TableLayout& layout, const std::vector<Record>& row);

// The groups a row has: the split values, or one unnamed group when nothing splits.
std::vector<std::string> table_groups(const TableLayout& layout);
// The record of `group` in a row (the row's first when nothing splits); nullptr when the row has none.
const Record* group_record(const TableLayout& layout, const std::vector<Record>& row, const std::string& group);
// The group a record falls in: its values of the split key's parameters (one, or several joined by '+'), joined by a
// space.
std::string split_text(const Record& record, const std::string& split_key);

}  // namespace distbench
