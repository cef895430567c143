#include "core/report/replay.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

namespace distbench {
namespace {

// Before version 3 a report kept only the summary's figures: each becomes an item named by its key (the counts
// every report has are made again from the records).
std::vector<SummaryItem> items_from_figures(const ordered_json& summary) {
  constexpr std::string_view kCounts[] = {"records", "measured", "skipped", "noise_missed"};
  std::vector<SummaryItem> items;
  if (!summary.is_object()) return items;
  for (const auto& [key, value] : summary.items()) {
    if (std::find(std::begin(kCounts), std::end(kCounts), key) != std::end(kCounts)) continue;
    const double v = value.is_number() ? value.get<double>() : kNotMeasured;
    items.push_back({key, key, v, value.is_null() ? std::string("-") : value.dump()});
  }
  return items;
}

}  // namespace

RunDescription description_of(const ParsedReport& report) {
  RunDescription d;
  d.benchmark = report.benchmark;
  d.title = report.title;
  d.config = report.config;
  d.records = report.layout;
  d.table = report.table;
  d.facts = report.facts;
  d.plots = report.plots;
  std::vector<SummaryItem> items =
      report.schema_version >= 3 ? report.summary_items : items_from_figures(report.summary);
  d.summarize = [items = std::move(items)](const std::vector<Record>&) { return items; };
  d.sections = [sections = report.sections](const std::vector<Record>&) { return sections; };
  return d;
}

void replay(const ParsedReport& report, Reporter& reporter) {
  reporter.begin(report.info, description_of(report));
  const std::vector<std::size_t> rows =
      report.rows.empty() ? std::vector<std::size_t>(report.records.size(), 1) : report.rows;
  auto next = report.records.begin();
  for (const std::size_t n : rows) {
    const std::vector<Record> row(next, next + static_cast<std::ptrdiff_t>(n));
    next += static_cast<std::ptrdiff_t>(n);
    reporter.add(row);
  }
  reporter.end(report.info);
}

}  // namespace distbench
