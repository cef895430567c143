#include "views/svg_plot.hpp"

#include "views/plot_axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

namespace distbench::views {
namespace {

// Colour-blind-friendly and free of red, which the marks use.
constexpr std::array<const char*, 9> kPalette = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                                 "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
constexpr const char* kMarkColour = "#d62728";
constexpr double kInset = 8;  // pixels between the frame and the outermost points

struct PixelPoint {
  double x = 0, y = 0;
};

// The plot area in pixels and the axes that map data onto it.
struct Frame {
  double left = 0, top = 0, width = 0, height = 0;
  PlotAxis x, y;

  double px(double v) const { return left + kInset + x.fraction(v) * (width - 2 * kInset); }
  double py(double v) const { return top + height - kInset - y.fraction(v) * (height - 2 * kInset); }
  PixelPoint at(double vx, double vy) const { return {px(vx), py(vy)}; }
};

// One series reduced to what can be drawn on the plot's axes.
struct Drawable {
  std::size_t index = 0;  // in the caller's series: its colour
  const PlotSeries* series = nullptr;
  std::vector<std::size_t> points;  // indices with drawable x and y
  std::vector<std::size_t> band;    // indices with drawable x, y_low and y_high
};

struct Range {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  void add(double v) {
    min = std::min(min, v);
    max = std::max(max, v);
  }
};

std::string svg_number(double v) { return fmt::format("{:.1f}", v); }

const char* colour(std::size_t index) { return kPalette[index % kPalette.size()]; }

std::vector<Drawable> drawable_series(const PlotSpec& spec, const std::vector<PlotSeries>& series) {
  std::vector<Drawable> out;
  for (std::size_t s = 0; s < series.size(); ++s) {
    const PlotSeries& one = series[s];
    Drawable d{s, &one, {}, {}};
    const std::size_t n = std::min(one.x.size(), one.y.size());
    const bool has_band = one.y_low.size() == one.x.size() && one.y_high.size() == one.x.size();
    for (std::size_t i = 0; i < n; ++i) {
      if (!plottable(one.x[i], spec.log_x)) continue;
      if (plottable(one.y[i], spec.log_y)) d.points.push_back(i);
      if (has_band && plottable(one.y_low[i], spec.log_y) && plottable(one.y_high[i], spec.log_y)) d.band.push_back(i);
    }
    if (!d.points.empty()) out.push_back(std::move(d));
  }
  return out;
}

// The plot area within the picture (room for the title, tick labels and axis labels around it); no axes yet.
Frame plot_area(const PlotSpec& spec, int width, int height) {
  Frame f;
  f.left = 76;
  f.top = spec.title.empty() ? 16 : 38;
  f.width = width - f.left - 18;
  f.height = height - f.top - 52;
  return f;
}

// The span of y a band may widen the axis to: the points' span and half as much again each side (on a log axis, in
// decades, and at least a factor 1.4), so that one interval 40 times wider than the others does not flatten the
// points. Band ends beyond it are clipped at the plot's edge and marked (band()).
Range band_room(const Range& points, bool log) {
  const auto t = [log](double v) { return log ? std::log10(v) : v; };
  const auto back = [log](double v) { return log ? std::pow(10.0, v) : v; };
  const double lo = t(points.min), hi = t(points.max);
  const double margin = std::max(0.5 * (hi - lo), log ? 0.15 : 0.1 * std::max(std::fabs(lo), std::fabs(hi)));
  Range room;
  room.add(back(lo - margin));
  room.add(back(hi + margin));
  return room;
}

// Axes that show every drawable point and, within band_room, every band of `drawn` (not empty).
void fit_axes(const PlotSpec& spec, const std::vector<Drawable>& drawn, Frame& f) {
  Range xs, ys;
  for (const Drawable& d : drawn) {
    for (std::size_t i : d.points) {
      xs.add(d.series->x[i]);
      ys.add(d.series->y[i]);
    }
  }
  const Range room = band_room(ys, spec.log_y);
  for (const Drawable& d : drawn) {
    for (std::size_t i : d.band) {
      xs.add(d.series->x[i]);
      ys.add(std::clamp(d.series->y_low[i], room.min, room.max));
      ys.add(std::clamp(d.series->y_high[i], room.min, room.max));
    }
  }
  for (const PlotSpec::Level& l : spec.levels) {
    if (!plottable(l.y, spec.log_y) || !plottable(l.x_from, spec.log_x) || !plottable(l.x_to, spec.log_x)) continue;
    xs.add(l.x_from);
    xs.add(l.x_to);
    ys.add(l.y);
  }
  for (double x : spec.x_lines) {
    if (plottable(x, spec.log_x)) xs.add(x);
  }
  f.x = make_axis(xs.min, xs.max, spec.log_x, spec.x_bytes ? TickStyle::bytes : TickStyle::number);
  f.y = make_axis(ys.min, ys.max, spec.log_y, TickStyle::number);
}

void labels(const PlotSpec& spec, const Frame& f, int width, int height, std::string& svg) {
  if (!spec.title.empty()) {
    svg += fmt::format(R"(<text x="{}" y="24" text-anchor="middle" font-size="15" font-weight="bold">{}</text>)",
                       svg_number(width / 2.0), html_escape(spec.title));
  }
  svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)", svg_number(f.left + f.width / 2),
                     svg_number(height - 10.0), html_escape(spec.x_label));
  svg += fmt::format(R"svg(<text transform="translate(16,{}) rotate(-90)" text-anchor="middle">{}</text>)svg",
                     svg_number(f.top + f.height / 2), html_escape(spec.y_label));
}

void border(const Frame& f, std::string& svg) {
  svg += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#444"/>)", svg_number(f.left),
                     svg_number(f.top), svg_number(f.width), svg_number(f.height));
}

void grid_and_ticks(const Frame& f, std::string& svg) {
  const double bottom = f.top + f.height;
  for (const AxisTick& t : f.x.ticks) {
    const std::string x = svg_number(f.px(t.value));
    svg += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#e3e3e3"/>)", x, svg_number(f.top),
                       svg_number(bottom));
    svg += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#444"/>)", x, svg_number(bottom),
                       svg_number(bottom + 5));
    svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)", x, svg_number(bottom + 18),
                       html_escape(t.label));
  }
  for (const AxisTick& t : f.y.ticks) {
    const std::string y = svg_number(f.py(t.value));
    svg += fmt::format(R"(<line x1="{1}" y1="{0}" x2="{2}" y2="{0}" stroke="#e3e3e3"/>)", y, svg_number(f.left),
                       svg_number(f.left + f.width));
    svg += fmt::format(R"(<line x1="{1}" y1="{0}" x2="{2}" y2="{0}" stroke="#444"/>)", y, svg_number(f.left - 5),
                       svg_number(f.left));
    svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="end">{}</text>)", svg_number(f.left - 8),
                       svg_number(f.py(t.value) + 4), html_escape(t.label));
  }
}

// The trend's marks (PlotSpec: shade, x_lines, levels), each drawable one within the plot area.
void trend_marks(const PlotSpec& spec, const Frame& f, std::string& svg) {
  if (plottable(spec.shade_from, spec.log_x) && plottable(spec.shade_to, spec.log_x)) {
    const double from = f.px(spec.shade_from), to = f.px(spec.shade_to);
    svg += fmt::format(R"(<rect class="shade" x="{}" y="{}" width="{}" height="{}" fill="#888" fill-opacity="0.15"/>)",
                       svg_number(std::min(from, to)), svg_number(f.top), svg_number(std::fabs(to - from)),
                       svg_number(f.height));
  }
  for (const PlotSpec::Level& l : spec.levels) {
    if (!plottable(l.y, spec.log_y) || !plottable(l.x_from, spec.log_x) || !plottable(l.x_to, spec.log_x)) continue;
    svg += fmt::format(R"(<line class="level" x1="{0}" y1="{2}" x2="{1}" y2="{2}" stroke="#555" stroke-width="1.5" )"
                       R"(stroke-dasharray="4 3"/>)",
                       svg_number(f.px(l.x_from)), svg_number(f.px(l.x_to)), svg_number(f.py(l.y)));
  }
  for (double x : spec.x_lines) {
    if (!plottable(x, spec.log_x)) continue;
    svg += fmt::format(R"(<line class="x-line" x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="{3}" )"
                       R"(stroke-width="1.5" stroke-dasharray="5 3"/>)",
                       svg_number(f.px(x)), svg_number(f.top), svg_number(f.top + f.height), kMarkColour);
  }
}

// A band's end beyond the axis is drawn at the plot's edge (PlotAxis::fraction): a small triangle there, pointing
// out, says that the interval goes on.
void clipped_ends(const Frame& f, const Drawable& d, std::string& svg) {
  for (std::size_t i : d.band) {
    const double x = f.px(d.series->x[i]);
    for (const bool high : {true, false}) {
      const double v = high ? d.series->y_high[i] : d.series->y_low[i];
      if (high ? v <= f.y.hi : v >= f.y.lo) continue;
      const double edge = high ? f.top : f.top + f.height, inward = high ? 7 : -7;
      svg += fmt::format(R"(<polygon class="clipped" points="{},{} {},{} {},{}" fill="{}"><title>{} beyond the )"
                         R"(plot: {}</title></polygon>)",
                         svg_number(x - 4), svg_number(edge + inward), svg_number(x + 4), svg_number(edge + inward),
                         svg_number(x), svg_number(edge), colour(d.index), high ? "upper end" : "lower end",
                         number_label(v));
    }
  }
}

void band(const Frame& f, const Drawable& d, std::string& svg) {
  if (d.band.size() < 2) return;
  std::string points;
  for (std::size_t i : d.band) {
    const PixelPoint p = f.at(d.series->x[i], d.series->y_high[i]);
    points += fmt::format("{},{} ", svg_number(p.x), svg_number(p.y));
  }
  for (auto it = d.band.rbegin(); it != d.band.rend(); ++it) {
    const PixelPoint p = f.at(d.series->x[*it], d.series->y_low[*it]);
    points += fmt::format("{},{} ", svg_number(p.x), svg_number(p.y));
  }
  points.pop_back();
  // outlined, so that a band a few pixels high (ranks that agree) still shows beside the line
  svg += fmt::format(R"(<polygon points="{}" fill="{}" fill-opacity="0.25" stroke="{}" stroke-opacity="0.6" )"
                     R"(stroke-width="1"/>)",
                     points, colour(d.index), colour(d.index));
  clipped_ends(f, d, svg);
}

void line_and_points(const Frame& f, const Drawable& d, std::string& svg) {
  const PlotSeries& s = *d.series;
  std::string points;
  for (std::size_t i : d.points) {
    const PixelPoint p = f.at(s.x[i], s.y[i]);
    points += fmt::format("{},{} ", svg_number(p.x), svg_number(p.y));
  }
  points.pop_back();
  svg += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="2"{}/>)", points, colour(d.index),
                     s.dashed ? R"( stroke-dasharray="6 4")" : "");
  const bool has_marks = s.marked.size() == s.x.size();
  for (std::size_t i : d.points) {
    const PixelPoint p = f.at(s.x[i], s.y[i]);
    svg +=
        fmt::format(R"(<circle cx="{}" cy="{}" r="3" fill="{}"/>)", svg_number(p.x), svg_number(p.y), colour(d.index));
    if (has_marks && s.marked[i]) {
      svg += fmt::format(R"(<circle cx="{}" cy="{}" r="6.5" fill="none" stroke="{}" stroke-width="2"/>)",
                         svg_number(p.x), svg_number(p.y), kMarkColour);
    }
  }
}

bool any_mark(const std::vector<Drawable>& drawn) {
  return std::any_of(drawn.begin(), drawn.end(), [](const Drawable& d) {
    const PlotSeries& s = *d.series;
    return s.marked.size() == s.x.size() &&
           std::any_of(d.points.begin(), d.points.end(), [&](std::size_t i) { return bool(s.marked[i]); });
  });
}

struct Box {
  double x = 0, y = 0, w = 0, h = 0;
  bool contains(PixelPoint p) const { return p.x >= x && p.x <= x + w && p.y >= y && p.y <= y + h; }
};

// The corner of the plot area whose legend box would hide the fewest points (top left first).
Box legend_box(const Frame& f, const std::vector<Drawable>& drawn, double w, double h) {
  const double pad = 10;
  const std::array<Box, 4> corners = {{{f.left + pad, f.top + pad, w, h},
                                       {f.left + f.width - pad - w, f.top + pad, w, h},
                                       {f.left + f.width - pad - w, f.top + f.height - pad - h, w, h},
                                       {f.left + pad, f.top + f.height - pad - h, w, h}}};
  std::size_t best = 0, fewest = std::numeric_limits<std::size_t>::max();
  for (std::size_t c = 0; c < corners.size(); ++c) {
    std::size_t hidden = 0;
    for (const Drawable& d : drawn) {
      for (std::size_t i : d.points) hidden += corners[c].contains(f.at(d.series->x[i], d.series->y[i])) ? 1 : 0;
    }
    if (hidden < fewest) {
      fewest = hidden;
      best = c;
    }
  }
  return corners[best];
}

void legend(const Frame& f, const PlotSpec& spec, const std::vector<Drawable>& drawn, std::string& svg) {
  const bool marks = any_mark(drawn);
  std::size_t longest = marks ? spec.mark_label.size() : 0;
  for (const Drawable& d : drawn) longest = std::max(longest, d.series->label.size());
  const double row = 17;
  const std::size_t rows = drawn.size() + (marks ? 1 : 0);
  const Box box = legend_box(f, drawn, 44 + 7.0 * static_cast<double>(longest), 8 + row * static_cast<double>(rows));
  svg += fmt::format(R"(<g class="legend"><rect x="{}" y="{}" width="{}" height="{}" fill="#fff" fill-opacity="0.88" )"
                     R"(stroke="#bbb"/>)",
                     svg_number(box.x), svg_number(box.y), svg_number(box.w), svg_number(box.h));
  double y = box.y + 4 + row / 2;
  for (const Drawable& d : drawn) {
    svg += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"{}/>)",
                       svg_number(box.x + 8), svg_number(y), svg_number(box.x + 32), svg_number(y), colour(d.index),
                       d.series->dashed ? R"( stroke-dasharray="6 4")" : "");
    svg += fmt::format(R"(<circle cx="{}" cy="{}" r="3" fill="{}"/>)", svg_number(box.x + 20), svg_number(y),
                       colour(d.index));
    svg += fmt::format(R"(<text x="{}" y="{}">{}</text>)", svg_number(box.x + 38), svg_number(y + 4),
                       html_escape(d.series->label));
    y += row;
  }
  if (marks) {
    svg += fmt::format(R"(<circle cx="{}" cy="{}" r="6" fill="none" stroke="{}" stroke-width="2"/>)",
                       svg_number(box.x + 20), svg_number(y), kMarkColour);
    svg += fmt::format(R"(<text x="{}" y="{}">{}</text>)", svg_number(box.x + 38), svg_number(y + 4),
                       html_escape(spec.mark_label));
  }
  svg += "</g>";
}

}  // namespace

std::string svg_line_plot(const PlotSpec& spec, const std::vector<PlotSeries>& series) {
  const int width = std::max(spec.width, 240);
  const int height = std::max(spec.height, 160);
  std::string svg =
      fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
                  R"(style="max-width: 100%; height: auto" )"
                  R"(font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12" fill="#222" role="img">)",
                  width, height);
  svg += fmt::format("<title>{}</title>", html_escape(spec.title));
  svg += R"(<rect width="100%" height="100%" fill="#fff"/>)";

  Frame frame = plot_area(spec, width, height);
  labels(spec, frame, width, height, svg);
  const std::vector<Drawable> drawn = drawable_series(spec, series);
  if (drawn.empty()) {
    border(frame, svg);
    svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle" font-size="16" fill="#888">no data</text>)",
                       svg_number(frame.left + frame.width / 2), svg_number(frame.top + frame.height / 2));
    return svg + "</svg>";
  }
  fit_axes(spec, drawn, frame);
  grid_and_ticks(frame, svg);
  border(frame, svg);
  trend_marks(spec, frame, svg);
  for (const Drawable& d : drawn) band(frame, d, svg);
  for (const Drawable& d : drawn) line_and_points(frame, d, svg);
  legend(frame, spec, drawn, svg);
  return svg + "</svg>";
}

}  // namespace distbench::views
