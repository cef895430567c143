#include "core/report/csv_reporter.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string_view>

namespace distbench {
namespace {

// Per phase: the timing summary (microseconds) and the spread of the ranks' means.
constexpr std::string_view kPhaseColumns[] = {"median_us",   "mean_us",     "min_us",     "max_us",
                                              "stddev_us",   "p99_us",      "noise_pct",  "median_ci_pct",
                                              "rank_min_us", "rank_avg_us", "rank_max_us"};

// RFC 4180: a field with a comma, a double quote or a line break is quoted, and its quotes doubled.
std::string csv_field(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

// 12 significant digits: every digit a timer can measure, none of the noise of the unit conversion.
std::string csv_number(double v) { return std::isfinite(v) ? fmt::format("{:.12g}", v) : std::string(); }
std::string csv_microseconds(double seconds) { return csv_number(seconds * 1e6); }

std::string phase_prefix(const RecordLayout& layout, const std::string& phase) {
  return layout.phases.size() > 1 ? phase + "_" : std::string();
}

void phase_fields(const PhaseStats* p, std::string& line) {
  if (p == nullptr) {
    line += std::string(std::size(kPhaseColumns), ',');
    return;
  }
  const Summary& t = p->summary;
  line +=
      fmt::format(",{},{},{},{},{},{},{},{},{},{},{}", csv_microseconds(t.median), csv_microseconds(t.mean),
                  csv_microseconds(t.min), csv_microseconds(t.max), csv_microseconds(t.stddev), csv_microseconds(t.p99),
                  csv_number(t.noise), csv_number(t.median_ci), csv_microseconds(p->rank_spread.min),
                  csv_microseconds(p->rank_spread.avg), csv_microseconds(p->rank_spread.max));
}

}  // namespace

std::string csv_header(const RecordLayout& layout) {
  std::string line;
  for (const std::string& key : layout.params) (line += csv_field(key)) += ',';
  line += "ops_per_sample,samples";
  for (const std::string& phase : layout.phases) {
    for (std::string_view c : kPhaseColumns) line += fmt::format(",{}{}", phase_prefix(layout, phase), c);
  }
  for (const MetricSpec& m : layout.metrics) (line += ',') += csv_field(m.key);
  return line + ",status,skip_reason\n";
}

std::string csv_line(const RecordLayout& layout, const Record& r) {
  std::string line;
  for (const std::string& key : layout.params) (line += csv_field(r.param_text(key))) += ',';
  if (r.ok()) {
    const PhaseStats* first = r.phases.empty() ? nullptr : &r.phases.front();
    line += fmt::format("{},{}", r.ops_per_sample, first == nullptr ? 0 : first->summary.samples);
    for (const std::string& phase : layout.phases) phase_fields(r.phase(phase), line);
    for (const MetricSpec& m : layout.metrics) (line += ',') += csv_number(r.metric(m.key));
  } else {  // nothing was measured
    line += ",";
    line += std::string(layout.phases.size() * std::size(kPhaseColumns) + layout.metrics.size(), ',');
  }
  return line + fmt::format(",{},{}\n", csv_field(r.status), csv_field(r.skip_reason));
}

void CsvReporter::on_begin(const RunInfo&) { text_ = csv_header(description().records); }

void CsvReporter::on_add(const std::vector<Record>& row) {
  for (const Record& r : row) text_ += csv_line(description().records, r);
}

}  // namespace distbench
