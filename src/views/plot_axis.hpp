// One axis of a plot: the range it shows, how a value maps onto it (linear or logarithmic) and its labelled ticks.
// Byte axes tick at powers of two labelled 8 B, 1 KiB, 1 MiB; other log axes at decades (with 2 and 5 between
// them when the range is short); linear axes at 1, 2, 5 times a power of ten. A number axis is widened to round
// values around the data, so that both its ends are labelled; a byte axis ends at the data.
#pragma once

#include <string>
#include <vector>

namespace distbench::views {

enum class TickStyle { number, bytes };

struct AxisTick {
  double value = 0;
  std::string label;
};

struct PlotAxis {
  bool log = false;
  double lo = 0, hi = 1;  // the range shown, in data units (lo < hi; both positive on a log axis)
  std::vector<AxisTick> ticks;

  // Where `v` lies on the axis: 0 at lo, 1 at hi; a value off the axis at its nearer end, one not drawable on it at 0.
  double fraction(double v) const;
};

// Whether a value can be drawn on an axis: finite, and positive on a log axis.
bool plottable(double v, bool log);

// An axis showing at least [min, max] (drawable values, min <= max; a single value gets a range around it, and so
// does a range narrower than 1e-9 of its magnitude, such as two values one ULP apart). It ends at once whatever the
// input, with a few ticks: magnitudes beyond 1e300 (and, on a log axis, below 1e-290) are drawn at its edge.
PlotAxis make_axis(double min, double max, bool log, TickStyle style);

// "8 B", "1 KiB", "1.5 MiB": binary units, as sizes are given on the command line.
std::string bytes_label(double bytes);
// A tick's number: "0.01", "250", "1e6".
std::string number_label(double v);

}  // namespace distbench::views
