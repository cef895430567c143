// A self-contained SVG line plot (no scripts, no fonts to fetch, nothing external): axes with ticks and labels, grid
// lines, a legend, one polyline per series in a colour of a fixed palette, a circle at each point, an optional
// translucent band per series and red rings on marked points. Pages embed the result as it is.
#pragma once

#include "core/sys/quote.hpp"  // html_escape, for the pages that embed a plot

#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::views {

struct PlotSeries {
  std::string label;
  std::vector<double> x, y;           // same length; points with non-finite or (on log axes) non-positive values
                                      // are skipped
  std::vector<double> y_low, y_high;  // optional band (same length as x, or empty): drawn as a translucent area
  std::vector<bool> marked;           // optional (same length or empty): points drawn with a red ring
                                      // (e.g. regressions)
  bool dashed = false;
};

struct PlotSpec {
  std::string title, x_label, y_label;
  bool log_x = true, log_y = true;  // log2 ticks labelled as byte sizes (8 B, 1 KiB, 1 MiB) on x when x_bytes
  bool x_bytes = true;
  int width = 760, height = 420;      // at least 240 x 160 are drawn
  std::string mark_label = "marked";  // the legend's entry for the red rings (shown only when a point is marked)
  // Marks for a trend over runs, none by default, drawn under the series: a shaded range of x (e.g. the runs a gate
  // judges), dashed red vertical lines at x values (e.g. change points) and dashed horizontal levels over ranges of x
  // (e.g. the means of the segments between them). The axes include them.
  double shade_from = std::numeric_limits<double>::quiet_NaN(), shade_to = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> x_lines;
  struct Level {
    double x_from = 0, x_to = 0, y = 0;
  };
  std::vector<Level> levels;
};

// "<svg ...>...</svg>". Every text is escaped; a plot without a drawable point says "no data".
std::string svg_line_plot(const PlotSpec& spec, const std::vector<PlotSeries>& series);

}  // namespace distbench::views
