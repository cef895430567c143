#include "views/report_tables.hpp"

#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <utility>

namespace distbench::views {
namespace {

bool numeric_param(const ParsedReport& r, const std::string& key) {
  for (const Record& rec : r.records) {
    if (const ParamValue* v = rec.param(key)) return !std::holds_alternative<std::string>(*v);
  }
  return false;
}

bool whole(double v) { return std::abs(v) < 1e15 && v == std::floor(v); }

std::string number_text(double v) {
  if (!std::isfinite(v)) return "-";
  if (whole(v)) return fmt::format("{:.0f}", v);
  return std::abs(v) >= 0.01 && std::abs(v) < 1e6 ? fmt::format("{:.2f}", v) : fmt::format("{:.3g}", v);
}

std::string json_text(const ordered_json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return v.is_number_integer() ? v.dump() : number_text(v.get<double>());
  return v.dump();
}

}  // namespace

std::vector<std::string> varying_params(const ParsedReport& r) {
  std::vector<std::string> keys;
  for (const std::string& key : r.layout.params) {
    const bool varies = std::any_of(r.records.begin(), r.records.end(), [&](const Record& rec) {
      return rec.param_text(key) != r.records.front().param_text(key);
    });
    if (varies || key == "bytes") keys.push_back(key);
  }
  return keys;
}

std::string metric_title(const MetricSpec& m) {
  return m.unit.empty() || m.unit == "1" ? m.key : fmt::format("{} ({})", m.key, m.unit);
}

std::string metric_text(double value, const MetricSpec& metric) {
  if (!std::isfinite(value)) return "-";
  if (metric.unit == "us") return time_text(value);
  if (metric.unit == "GB/s") return bandwidth_text(value);
  if (metric.unit == "1/op") return count_text(value);
  if (metric.unit == kUnixTimeUnit) return timestamp_text(value);
  return number_text(value);
}

ResultsTable results_table(const ParsedReport& r) {
  ResultsTable table;
  const std::vector<std::string> params = varying_params(r);
  for (const std::string& key : params) table.columns.push_back({key, numeric_param(r, key)});
  for (const MetricSpec& m : r.layout.metrics) table.columns.push_back({metric_title(m), true});
  table.columns.push_back({"status", false});
  for (const Record& rec : r.records) {
    std::vector<std::string> cells;
    for (const std::string& key : params) cells.push_back(rec.param_text(key));
    for (const MetricSpec& m : r.layout.metrics) cells.push_back(rec.ok() ? metric_text(rec.metric(m.key), m) : "");
    cells.push_back(rec.ok() || rec.skip_reason.empty() ? rec.status
                                                        : fmt::format("{}: {}", rec.status, rec.skip_reason));
    table.rows.push_back(std::move(cells));
  }
  return table;
}

std::vector<std::pair<std::string, std::string>> summary_items(const ParsedReport& r) {
  std::vector<std::pair<std::string, std::string>> items;
  if (!r.summary.is_object()) return items;
  for (const auto& [key, value] : r.summary.items()) items.emplace_back(key, json_text(value));
  return items;
}

namespace {

// The counts every report has, and the figures the benchmarks summarize, by the key's first part.
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kSummaryNames = {{
    {"records", "records"},
    {"measured", "measured"},
    {"skipped", "skipped"},
    {"noise_missed", "noise target missed"},
    {"wrong", "wrong elements"},
    {"avg_busbw_gbps", "average bus bandwidth"},
    {"avg_algbw_gbps", "average algorithm bandwidth"},
    {"avg_time_us", "average time"},
}};

std::string summary_name(const std::string& key) {
  const std::string head = key.substr(0, key.find('.'));
  std::string name;
  for (const auto& [k, words] : kSummaryNames) {
    if (k == head) name = words;
  }
  if (name.empty()) {
    name = head;
    std::replace(name.begin(), name.end(), '_', ' ');
  }
  if (head.size() < key.size()) {  // "avg_busbw_gbps.float32.sum": ", float32 sum"
    std::string rest = key.substr(head.size() + 1);
    std::replace(rest.begin(), rest.end(), '.', ' ');
    name += ", " + rest;
  }
  return name;
}

}  // namespace

std::vector<SummaryRow> summary_rows(const ParsedReport& r) {
  std::vector<SummaryRow> rows;
  if (!r.summary.is_object()) return rows;
  for (const auto& [key, value] : r.summary.items()) {
    SummaryRow row{key, summary_name(key), json_text(value)};
    const bool rate = key.substr(0, key.find('.')).ends_with("_gbps");
    if (rate && value.is_number()) row.value = fmt::format("{:.4g} GB/s", value.get<double>());
    for (const SummaryItem& item : r.summary_items) {
      if (item.key != key || item.text.empty() || rate) continue;
      row.value = item.text;  // the run's words: "healthy (1 healthy; 1 node)", "0 OK"
      const std::string head = key.substr(0, key.find('.'));
      const bool named =
          std::any_of(kSummaryNames.begin(), kSummaryNames.end(), [&](const auto& n) { return n.first == head; });
      if (!named && !item.label.empty()) row.name = item.label;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string run_facts(const ParsedReport& r) {
  const RunInfo& info = r.info;
  std::string facts = fmt::format("distbench {} (git {}) · {}", info.tool_version, info.git_sha, r.title);
  if (r.benchmark != r.title) facts += fmt::format(" ({})", r.benchmark);
  facts += fmt::format(" · backend {} · {}, per host: {} · {} · status {}", info.backend,
                       plural(static_cast<std::size_t>(info.world_size), "rank", "ranks"),
                       ranks_per_host_text(info.ranks), plural(r.records.size(), "record", "records"), info.status);
  if (!info.start_time.empty()) facts += fmt::format(" · started {}", info.start_time);
  return facts;
}

}  // namespace distbench::views
