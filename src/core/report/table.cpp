#include "core/report/table.hpp"

#include "core/device/dtype.hpp"
#include "core/error.hpp"
#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace distbench {
namespace {

std::string whole_text(double v) { return fixed_text(v, 0); }

double phase_statistic(const Record& record, const ColumnSpec& column) {
  const PhaseStats* phase = record.phase(column.phase);
  if (phase == nullptr) return kNotMeasured;
  const Summary& s = phase->summary;
  if (column.key == "median_us") return s.median * 1e6;
  if (column.key == "mean_us") return s.mean * 1e6;
  if (column.key == "p99_us") return s.p99 * 1e6;
  if (column.key == "noise_pct") return s.median_ci;
  if (column.key == "samples") return static_cast<double>(s.samples);
  throw failure(fmt::format("internal error: no phase statistic '{}'", column.key));
}

}  // namespace

std::string cell_text(const Record& record, const ColumnSpec& column) {
  if (const ParamValue* p = record.param(column.key)) {
    if (column.format == CellFormat::integer) {
      if (const auto* d = std::get_if<double>(p)) return whole_text(*d);
    }
    if (column.format == CellFormat::nccl_type) {
      if (const auto t = parse_dtype(param_text(*p))) return std::string(nccl_tests_name(*t));
    }
    return param_text(*p);
  }
  const double v = column.phase.empty() ? record.metric(column.key) : phase_statistic(record, column);
  switch (column.format) {
    case CellFormat::time_us: return time_text(v);
    case CellFormat::bandwidth: return bandwidth_text(v);
    case CellFormat::fitted: return fitted_text(v, column.width);
    case CellFormat::per_op: return count_text(v);
    case CellFormat::checked: return std::isfinite(v) ? whole_text(v) : std::string("N/A");
    case CellFormat::integer: return whole_text(v);
    case CellFormat::timestamp: return timestamp_text(v);
    case CellFormat::number: return std::isfinite(v) ? fmt::format("{:.4g}", v) : std::string("-");
    case CellFormat::text:
    case CellFormat::nccl_type: return std::isfinite(v) ? fmt::format("{}", v) : std::string("-");
    case CellFormat::noise:
      return std::isfinite(v) ? percent_number(v) + (record.noise_target_met ? "" : "*") : std::string("-");
  }
  return "-";
}

std::string split_text(const Record& record, const std::string& split_key) {
  std::string out;
  std::size_t from = 0;
  while (true) {
    const std::size_t plus = split_key.find('+', from);
    if (!out.empty()) out += ' ';
    out += record.param_text(split_key.substr(from, plus == std::string::npos ? std::string::npos : plus - from));
    if (plus == std::string::npos) return out;
    from = plus + 1;
  }
}

std::vector<std::string> table_groups(const TableLayout& layout) {
  if (layout.split_key.empty()) return {std::string()};
  return layout.split_values;
}

const Record* group_record(const TableLayout& layout, const std::vector<Record>& row, const std::string& group) {
  if (row.empty()) return nullptr;
  if (layout.split_key.empty()) return &row.front();
  auto it =
      std::find_if(row.begin(), row.end(), [&](const Record& x) { return split_text(x, layout.split_key) == group; });
  return it == row.end() ? nullptr : &*it;
}

TableRow table_row(const TableLayout& layout, const std::vector<Record>& row) {
  TableRow out;
  if (row.empty()) return out;
  for (const ColumnSpec& c : layout.key_columns) out.keys.push_back(cell_text(row.front(), c));
  for (const std::string& group : table_groups(layout)) {
    const Record* r = group_record(layout, row, group);
    std::vector<std::string> cells;
    bool status_shown = false;
    for (const ColumnSpec& c : layout.value_columns) {
      if (r == nullptr) {
        cells.emplace_back(c.detail ? "" : "-");
      } else if (!r->ok()) {
        cells.emplace_back(!c.detail && !status_shown ? r->status : "");
        status_shown = status_shown || !c.detail;
      } else {
        cells.push_back(cell_text(*r, c));
      }
    }
    out.groups.push_back(std::move(cells));
  }
  return out;
}

}  // namespace distbench
