// The HTML view of a history check: a self-contained page (inline CSS and SVG, no script, nothing fetched) with the
// outcome, the rules, one trend plot per series (its metric over the runs; change points as dashed red vertical lines,
// the segments' geometric means as dashed steps, the gated window shaded, the newest run ringed when it decided the
// verdict alone) and the table of cases.
#include "core/report/text.hpp"
#include "history/history_views.hpp"
#include "history/series_values.hpp"
#include "views/svg_plot.hpp"

#include <fmt/format.h>

#include <cmath>

namespace distbench::history {
namespace {

// Where a boundary between two points is drawn: halfway between their runs.
double boundary_x(const Series& s, std::size_t index) {
  if (index == 0) return static_cast<double>(s.points.front().run);
  return (static_cast<double>(s.points[index - 1].run) + static_cast<double>(s.points[index].run)) / 2;
}

// The segments' geometric means, each over the runs of its points.
std::vector<views::PlotSpec::Level> segment_levels(const Series& s, const SeriesValues& v, const SeriesCheck& sc) {
  std::vector<std::size_t> bounds{0};
  for (const ChangePoint& c : sc.change_points) bounds.push_back(c.index);
  bounds.push_back(s.points.size());
  std::vector<views::PlotSpec::Level> levels;
  for (std::size_t b = 0; b + 1 < bounds.size(); ++b) {
    double log_sum = 0, first = kNotMeasured, last = kNotMeasured;
    std::size_t n = 0;
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (v.index[k] < bounds[b] || v.index[k] >= bounds[b + 1]) continue;
      const double run = static_cast<double>(s.points[v.index[k]].run);
      if (n++ == 0) first = run;
      last = run;
      log_sum += v.log_value[k];
    }
    if (n > 0) levels.push_back({first, last, std::exp(log_sum / static_cast<double>(n))});
  }
  return levels;
}

std::string trend_plot(const HistoryCheck& check, const compare::CaseComparison& k, const SeriesCheck& sc,
                       const Series& s) {
  const compare::Comparison& c = check.comparison;
  const SeriesValues v = series_values(s, c.options.metric);
  const bool ring = sc.newest_alone && (k.verdict == compare::Verdict::slower || k.verdict == compare::Verdict::faster);
  views::PlotSeries runs{std::string(name(c.options.metric)), {}, {}, {}, {}, {}, false};
  for (std::size_t i = 0; i < v.size(); ++i) {
    runs.x.push_back(static_cast<double>(s.points[v.index[i]].run));
    runs.y.push_back(v.value[i]);
    runs.marked.push_back(ring && i + 1 == v.size());
  }
  views::PlotSpec spec;
  spec.title = fmt::format("{}: {}", k.label, name(k.verdict));
  spec.x_label = "run";
  spec.y_label = fmt::format("{} ({})", name(c.options.metric), c.metric_unit);
  spec.log_x = spec.log_y = spec.x_bytes = false;
  spec.mark_label = "the newest run decided";
  for (const ChangePoint& cp : sc.change_points) {
    if (cp.index < s.points.size()) spec.x_lines.push_back(boundary_x(s, cp.index));
  }
  if (!s.points.empty() && sc.gated_from < s.points.size()) {
    spec.shade_from = boundary_x(s, sc.gated_from);
    spec.shade_to = static_cast<double>(s.points.back().run);
  }
  spec.levels = segment_levels(s, v, sc);
  return views::svg_line_plot(spec, {runs});
}

std::string case_table(const compare::Comparison& c) {
  std::string out = fmt::format(
      "<div class=\"wide\"><table>\n<tr><th>case</th><th>before {0} ({1})</th><th>newest {0} ({1})</th><th>change "
      "[CI]</th><th>p</th>"
      "<th>verdict</th></tr>\n",
      name(c.options.metric), c.metric_unit);
  for (const compare::CaseComparison& k : c.cases) {
    std::string verdict(name(k.verdict));
    if (!k.reason.empty()) verdict += fmt::format(" ({})", k.reason);
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>\n",
                       html_escape(k.label), metric_words(c, k.base), metric_words(c, k.cand),
                       interval_words(k.change, k.change_low, k.change_high), p_figure(k.p), name(k.verdict),
                       html_escape(verdict));
  }
  return out + "</table></div>\n";
}

}  // namespace

std::string history_html(const HistoryCheck& check, const std::vector<Series>& series) {
  const compare::Comparison& c = check.comparison;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  out += "<title>distbench history check</title>\n";
  out +=
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<style>body{font-family:sans-serif;margin:2em auto;padding:0 1.5em;max-width:1560px;color:#222}"
      ".wide{overflow-x:auto}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child{text-align:left}"
      "td{white-space:nowrap}td:last-child,th:last-child{text-align:left;white-space:normal;min-width:16em}"
      ".SLOWER{color:#b00;font-weight:bold}.FASTER{color:#070}.bad{color:#b00}.ok{color:#070}</style>\n";
  out += "</head><body>\n<h1>distbench history check</h1>\n";
  const bool fails = c.regressed() || !c.not_judged.empty();
  const std::string outcome = c.regressed() ? "Regression" : c.not_judged.empty() ? "No regression" : "Not judged";
  out +=
      fmt::format("<p class=\"{}\"><b>{}</b> · {}</p>\n", fails ? "bad" : "ok", outcome, html_escape(c.summary_line()));
  if (!c.not_judged.empty()) out += fmt::format("<p class=\"bad\">Not judged: {}</p>\n", html_escape(c.not_judged));
  out += fmt::format("<p>{}.</p>\n", html_escape(check_rules(check)));
  out +=
      "<p>In each plot: dashed red vertical lines are change points, dashed grey steps the segments' geometric "
      "means, the shaded runs the window the gate judges; a red ring marks a newest run that decided the verdict "
      "alone.</p>\n";
  for (const auto& w : c.warnings) out += fmt::format("<p class=\"bad\">warning: {}</p>\n", html_escape(w));
  const auto of = series_of(check, series);
  for (std::size_t i = 0; i < c.cases.size() && i < check.series.size(); ++i) {
    if (of[i] != nullptr) out += trend_plot(check, c.cases[i], check.series[i], *of[i]) + "\n";
  }
  out += case_table(c);
  return out + "</body></html>\n";
}

}  // namespace distbench::history
