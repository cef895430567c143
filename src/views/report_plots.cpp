#include "views/report_plots.hpp"

#include "views/report_tables.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace distbench::views {
namespace {

// What the run said to plot (PlotChoice), else its first metric.
std::vector<PlotChoice> plot_choices(const ParsedReport& r) {
  if (!r.plots.empty()) return r.plots;
  if (!r.layout.metrics.empty()) return {{r.layout.metrics.front().key, ""}};
  return {};
}

std::optional<double> number_param(const Record& rec, std::string_view key) {
  const ParamValue* v = rec.param(key);
  if (v == nullptr) return std::nullopt;
  if (const auto* i = std::get_if<std::int64_t>(v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(v)) return *d;
  return std::nullopt;
}

// What tells one line from another: the varying parameters other than the size (and the count, which follows it).
std::vector<std::string> series_keys(const ParsedReport& r) {
  std::vector<std::string> keys = varying_params(r);
  std::erase_if(keys, [](const std::string& k) { return k == "bytes" || k == "count"; });
  return keys;
}

std::string series_label(const Record& rec, const std::vector<std::string>& keys, const std::string& fallback) {
  if (keys.empty()) return fallback;
  std::vector<std::string> values;
  for (const std::string& k : keys) values.push_back(rec.param_text(k));
  return fmt::format("{}", fmt::join(values, " "));
}

struct DataPoint {
  double x = 0, y = 0, low = kNotMeasured, high = kNotMeasured;
  bool marked = false;
};

PlotSeries to_series(std::string label, std::vector<DataPoint> points, bool band, bool marks) {
  std::stable_sort(points.begin(), points.end(), [](const DataPoint& a, const DataPoint& b) { return a.x < b.x; });
  PlotSeries s;
  s.label = std::move(label);
  for (const DataPoint& p : points) {
    s.x.push_back(p.x);
    s.y.push_back(p.y);
    if (band) {
      s.y_low.push_back(p.low);
      s.y_high.push_back(p.high);
    }
    if (marks) s.marked.push_back(p.marked);
  }
  return s;
}

ReportPlot make_plot(const ParsedReport& r, const PlotChoice& choice, const MetricSpec& metric) {
  const std::vector<std::string> keys = series_keys(r);
  std::vector<std::string> labels;             // in order of first appearance
  std::vector<std::vector<DataPoint>> points;  // per label
  bool band = false, marks = false, positive = true;
  for (const Record& rec : r.records) {
    const std::optional<double> x = number_param(rec, "bytes");
    if (!rec.ok() || !x) continue;
    DataPoint p{*x, rec.metric(metric.key)};
    if (const PhaseStats* phase = choice.band_phase.empty() ? nullptr : rec.phase(choice.band_phase)) {
      p.low = phase->rank_spread.min * 1e6;
      p.high = phase->rank_spread.max * 1e6;
      band = true;
    }
    p.marked = rec.metric("wrong") > 0;
    marks = marks || p.marked;
    positive = positive && !(std::isfinite(p.y) && p.y <= 0);
    const std::string label = series_label(rec, keys, r.title);
    auto it = std::find(labels.begin(), labels.end(), label);
    if (it == labels.end()) {
      labels.push_back(label);
      points.emplace_back();
      it = labels.end() - 1;
    }
    points[static_cast<std::size_t>(it - labels.begin())].push_back(p);
  }

  ReportPlot plot;
  plot.spec.title = fmt::format("{}: {} by size", r.title, metric.key);
  plot.spec.x_label = "size (bytes)";
  plot.spec.y_label = metric_title(metric);
  plot.spec.log_y = positive;
  plot.spec.mark_label = "wrong results";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    plot.series.push_back(to_series(labels[i], std::move(points[i]), band, marks));
  }
  plot.caption = metric.description.empty() ? metric.key : fmt::format("{} — {} —", metric.key, metric.description);
  plot.caption += " against the size in bytes";
  plot.caption += keys.empty() ? "." : fmt::format(", one line per {}.", fmt::join(keys, " / "));
  if (band) plot.caption += " Shaded: from the fastest to the slowest rank's mean time.";
  if (marks) plot.caption += " Red rings: records with wrong results.";
  return plot;
}

}  // namespace

std::vector<ReportPlot> report_plots(const ParsedReport& r) {
  std::vector<ReportPlot> plots;
  if (std::find(r.layout.params.begin(), r.layout.params.end(), "bytes") == r.layout.params.end()) return plots;
  for (const PlotChoice& choice : plot_choices(r)) {
    const auto m = std::find_if(r.layout.metrics.begin(), r.layout.metrics.end(),
                                [&](const MetricSpec& spec) { return spec.key == choice.metric; });
    if (m != r.layout.metrics.end()) plots.push_back(make_plot(r, choice, *m));
  }
  return plots;
}

}  // namespace distbench::views
