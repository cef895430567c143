// The HTML view of a model: a self-contained page (inline CSS and SVG, nothing fetched) with, per collective and
// algorithm, the parameters, a plot of the measured times (refused sizes ringed) with the fitted line and its band at
// each measured rank count and at the predicted ones, a plot of the bus bandwidth against the model's bound and the
// link rate, and the figures in tables.
#include "model/model_views.hpp"

#include "core/sys/quote.hpp"
#include "model/limits.hpp"
#include "views/svg_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace distbench::model {
namespace {

std::vector<double> sizes_of(const CollectiveModel& m) {
  std::set<double> s;
  for (const FittedPoint& p : m.points) s.insert(p.bytes);
  for (const PredictedCase& k : m.predictions) s.insert(k.bytes);
  return {s.begin(), s.end()};
}

views::PlotSeries model_line(const CollectiveModel& m, int p, const std::vector<double>& sizes,
                             const std::string& label) {
  views::PlotSeries line{label, {}, {}, {}, {}, {}, true};
  for (double s : sizes) {
    const AlgorithmTime t = predict_time(m, m.algorithm, p, s);
    line.x.push_back(s);
    line.y.push_back(t.seconds * 1e6);
    line.y_low.push_back(t.low * 1e6);
    line.y_high.push_back(t.high * 1e6);
  }
  return line;
}

std::string time_plot(const CollectiveModel& m) {
  const std::vector<double> sizes = sizes_of(m);
  std::vector<views::PlotSeries> series;
  for (int p : m.ranks) {
    views::PlotSeries measured{fmt::format("measured, p={}", p), {}, {}, {}, {}, {}, false};
    for (const FittedPoint& pt : m.points) {
      if (pt.nranks != p) continue;
      measured.x.push_back(pt.bytes);
      measured.y.push_back(pt.measured_s * 1e6);
      measured.marked.push_back(pt.refused);
    }
    series.push_back(std::move(measured));
    series.push_back(model_line(m, p, sizes, fmt::format("model, p={}", p)));
  }
  std::set<int> predicted;
  for (const PredictedCase& k : m.predictions) {
    if (std::find(m.ranks.begin(), m.ranks.end(), k.nranks) == m.ranks.end()) predicted.insert(k.nranks);
  }
  for (int p : predicted) series.push_back(model_line(m, p, sizes, fmt::format("predicted, p={}", p)));
  views::PlotSpec spec;
  spec.title = fmt::format("{} by {}: time per operation", name(m.collective), name(m.algorithm));
  spec.x_label = "size S";
  spec.y_label = "time (us)";
  spec.mark_label = "refused by the fit";
  return views::svg_line_plot(spec, series);
}

std::string bandwidth_plot(const ModelResult& r, const CollectiveModel& m) {
  std::vector<views::PlotSeries> series;
  for (int p : m.ranks) {
    views::PlotSeries measured{fmt::format("busbw, p={}", p), {}, {}, {}, {}, {}, false};
    views::PlotSeries bound{fmt::format("model bound, p={}", p), {}, {}, {}, {}, {}, true};
    views::PlotSeries link{fmt::format("link allows, p={}", p), {}, {}, {}, {}, {}, true};
    for (const FittedPoint& pt : m.points) {
      if (pt.nranks != p) continue;
      measured.x.push_back(pt.bytes);
      measured.y.push_back(pt.busbw_gbps);
      measured.marked.push_back(pt.refused);
      bound.x.push_back(pt.bytes);
      bound.y.push_back(pt.bound_gbps);
      link.x.push_back(pt.bytes);
      link.y.push_back(pt.link_bound_gbps);
    }
    series.push_back(std::move(measured));
    series.push_back(std::move(bound));
    if (r.link_gbps > 0) series.push_back(std::move(link));
  }
  views::PlotSpec spec;
  spec.title = fmt::format("{} by {}: bus bandwidth", name(m.collective), name(m.algorithm));
  spec.x_label = "size S";
  spec.y_label = "busbw (GB/s)";
  spec.mark_label = "refused by the fit";
  return views::svg_line_plot(spec, series);
}

}  // namespace

std::string model_html(const ModelResult& r) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  out += "<title>distbench model</title>\n";
  out +=
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<style>body{font-family:sans-serif;margin:2em auto;padding:0 1.5em;max-width:1560px;color:#222}"
      ".wide{overflow-x:auto}table{border-collapse:collapse;margin:0.5em 0}"
      "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right;white-space:nowrap}"
      "td:last-child,th:last-child{text-align:left;white-space:normal;min-width:16em}"
      "table.predictions td:nth-child(3){text-align:left}</style>\n</head><body>\n<h1>distbench model</h1>\n";
  std::string sources;
  for (const std::string& s : r.sources) sources += (sources.empty() ? "" : ", ") + html_escape(s);
  out += fmt::format("<p>Fitted to: {}</p>\n", sources);
  for (const CollectiveModel& m : r.models) {
    out += fmt::format("<h2>{} by {}</h2>\n<p>T(p, S) = <code>{}</code></p>\n",
                       html_escape(std::string(name(m.collective))), html_escape(std::string(name(m.algorithm))),
                       html_escape(formula_text(m.collective, m.algorithm)));
    out += time_plot(m) + "\n" + bandwidth_plot(r, m) + "\n";
  }
  for (const CollectiveModel& m : r.models) {
    out += fmt::format("<h2>Figures: {} by {}</h2>\n", html_escape(std::string(name(m.collective))),
                       html_escape(std::string(name(m.algorithm))));
    out += model_figures_html(r, m);
  }
  return out + "</body></html>\n";
}

}  // namespace distbench::model
