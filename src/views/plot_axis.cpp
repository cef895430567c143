#include "views/plot_axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace distbench::views {
namespace {

constexpr double kEps = 1e-9;  // slack for logarithms of exact powers
constexpr std::size_t kMaxTicks = 9;
// The axis's arithmetic stays within these, whatever the data: a linear span, its step and its rounded ends stay
// finite (no overflow) and normal (no underflow to a step of 0); a log axis's ends stay positive after halving.
// Data beyond them (no measurement comes near) is drawn at the edge of the plot.
constexpr double kAxisLargest = 1e300;
constexpr double kAxisSmallest = 1e-290;
// A range narrower than this, relative to its magnitude, is drawn as one value: its ticks could not be told apart
// (nor even counted: a step one ULP wide never advanced past the start).
constexpr double kAxisNarrowest = 1e-9;
constexpr std::size_t kMostLinearTicks = 16;  // a linear step gives four to seven; more means the arithmetic failed

double to_axis(double v, bool log) { return log ? std::log(v) : v; }

bool inside(double v, double lo, double hi) {
  const double slack = (hi - lo) * kEps;
  return v >= lo - slack && v <= hi + slack;
}

std::string label(double v, TickStyle style) { return style == TickStyle::bytes ? bytes_label(v) : number_label(v); }

// 1, 2 or 5 times a power of ten, the smallest at least `raw`.
double nice_step(double raw) {
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * decade >= raw * (1 - kEps)) return m * decade;
  }
  return 10 * decade;
}

double linear_step(double lo, double hi) { return nice_step((hi - lo) / 6); }  // four to seven ticks

// The multiples of the step within [lo, hi], counted first: a loop that adds 1 to a large double never ends.
std::vector<AxisTick> linear_ticks(double lo, double hi, TickStyle style) {
  const double step = linear_step(lo, hi);
  const double first = std::ceil(lo / step - kEps);
  const double last = std::floor(hi / step + kEps);
  std::vector<AxisTick> ticks;
  if (!std::isfinite(first) || !std::isfinite(last) || !(step > 0) || last - first >= kMostLinearTicks) return ticks;
  for (double k = first; k <= last; k += 1) {
    const double v = std::abs(k) < kEps ? 0.0 : k * step;
    ticks.push_back({v, label(v, style)});
  }
  return ticks;
}

// The nearest 1, 2 or 5 times a power of ten at or below (above) a positive v.
double nice_below(double v) {
  const double decade = std::pow(10.0, std::floor(std::log10(v) + kEps));
  for (double m : {5.0, 2.0, 1.0}) {
    if (m * decade <= v * (1 + kEps)) return m * decade;
  }
  return decade / 2;
}

double nice_above(double v) {
  const double decade = std::pow(10.0, std::floor(std::log10(v) - kEps));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * decade >= v * (1 - kEps)) return m * decade;
  }
  return 10 * decade;
}

// A number axis ends at round values around the data, so that its ends are labelled: 1, 2 or 5 times a power of
// ten on a log axis, multiples of the tick step on a linear one. (A byte axis ends at the data: sizes are powers of
// two already.)
void round_out(PlotAxis& axis) {
  if (axis.log) {
    axis.lo = nice_below(axis.lo);
    axis.hi = nice_above(axis.hi);
    return;
  }
  const double step = linear_step(axis.lo, axis.hi);
  axis.lo = std::floor(axis.lo / step + kEps) * step;
  axis.hi = std::ceil(axis.hi / step - kEps) * step;
}

// Powers of two, every `step`-th exponent (a multiple of it), with step 1, 2, 5 or 10 so that at most kMaxTicks fit.
std::vector<AxisTick> power_of_two_ticks(double lo, double hi, TickStyle style) {
  const int e_lo = static_cast<int>(std::ceil(std::log2(lo) - kEps));
  const int e_hi = static_cast<int>(std::floor(std::log2(hi) + kEps));
  std::vector<AxisTick> ticks;
  if (e_hi < e_lo) return ticks;
  int step = 1;
  for (int s : {1, 2, 5, 10, 20, 50, 100, 200}) {
    step = s;
    if ((e_hi - e_lo) / s + 1 <= static_cast<int>(kMaxTicks)) break;
  }
  const int first = static_cast<int>(std::ceil(static_cast<double>(e_lo) / step)) * step;
  for (int e = first; e <= e_hi; e += step) {
    const double v = std::ldexp(1.0, e);
    ticks.push_back({v, label(v, style)});
  }
  return ticks;
}

// Decades; with 2 and 5 (or every digit) between them when fewer than four decades fall in the range.
std::vector<AxisTick> decade_ticks(double lo, double hi, TickStyle style) {
  const int d_lo = static_cast<int>(std::floor(std::log10(lo) + kEps));
  const int d_hi = static_cast<int>(std::floor(std::log10(hi) + kEps));
  const int step = std::max(1, static_cast<int>(std::ceil((d_hi - d_lo + 1) / static_cast<double>(kMaxTicks))));
  static constexpr std::array<std::array<double, 9>, 3> kMultiples = {
      {{1, 0, 0, 0, 0, 0, 0, 0, 0}, {1, 2, 5, 0, 0, 0, 0, 0, 0}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}};
  std::vector<AxisTick> ticks;
  for (const auto& multiples : kMultiples) {
    ticks.clear();
    for (int d = d_lo; d <= d_hi; d += step) {
      for (double m : multiples) {
        const double v = m * std::pow(10.0, d);
        if (m > 0 && inside(v, lo, hi)) ticks.push_back({v, label(v, style)});
      }
    }
    if (ticks.size() >= 4 || step > 1) break;
  }
  return ticks;
}

// The data's ends brought within what the axis's arithmetic handles: a NaN end takes the other's value (or a
// default), the magnitudes are bounded, a log axis's ends are positive.
void bound_ends(double& min, double& max, bool log) {
  const double fallback = log ? 1.0 : 0.0;
  if (std::isnan(min)) min = std::isnan(max) ? fallback : max;
  if (std::isnan(max)) max = min;
  if (min > max) std::swap(min, max);
  if (log) {
    min = std::clamp(min, kAxisSmallest, kAxisLargest);
    max = std::clamp(max, kAxisSmallest, kAxisLargest);
  } else {
    min = std::clamp(min, -kAxisLargest, kAxisLargest);
    max = std::clamp(max, -kAxisLargest, kAxisLargest);
  }
}

// Whether [min, max] is too narrow to tick (see kAxisNarrowest): on a log axis relative to its values, on a linear one
// relative to its larger magnitude (or absolutely, near 0).
bool too_narrow(double min, double max, bool log) {
  if (log) return max / min - 1 <= kAxisNarrowest;
  const double magnitude = std::max(std::abs(min), std::abs(max));
  return max - min <= std::max(magnitude * kAxisNarrowest, kAxisSmallest);
}

}  // namespace

double PlotAxis::fraction(double v) const {
  const double f = (to_axis(v, log) - to_axis(lo, log)) / (to_axis(hi, log) - to_axis(lo, log));
  if (!(f >= 0)) return 0;  // below the axis, or NaN (a value not drawable on it)
  return std::min(f, 1.0);
}

bool plottable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

PlotAxis make_axis(double min, double max, bool log, TickStyle style) {
  bound_ends(min, max, log);
  PlotAxis axis;
  axis.log = log;
  axis.lo = min;
  axis.hi = max;
  if (too_narrow(min, max, log)) {  // one value: a range around its middle
    const double middle = min / 2 + max / 2;
    if (log) {
      axis.lo = middle / 2;
      axis.hi = middle * 2;
    } else {
      const double pad = std::max(std::abs(middle) / 10, middle == 0 ? 1.0 : kAxisSmallest);
      axis.lo = middle - pad;
      axis.hi = middle + pad;
    }
  }
  if (style == TickStyle::number) round_out(axis);
  if (log) {
    axis.ticks =
        style == TickStyle::bytes ? power_of_two_ticks(axis.lo, axis.hi, style) : decade_ticks(axis.lo, axis.hi, style);
  }
  if (axis.ticks.size() < 2) {  // linear, or a log range too short for its own ticks
    auto linear = linear_ticks(axis.lo, axis.hi, style);
    if (log) std::erase_if(linear, [](const AxisTick& t) { return t.value <= 0; });
    if (linear.size() > axis.ticks.size()) axis.ticks = std::move(linear);
  }
  return axis;
}

std::string bytes_label(double bytes) {
  static constexpr std::array<const char*, 6> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t unit = 0;
  while (unit + 1 < kUnits.size() && std::abs(bytes) >= std::ldexp(1.0, 10 * static_cast<int>(unit + 1))) ++unit;
  return fmt::format("{:g} {}", bytes / std::ldexp(1.0, 10 * static_cast<int>(unit)), kUnits[unit]);
}

std::string number_label(double v) {
  std::string text = fmt::format("{:g}", v);
  const auto e = text.find('e');
  if (e == std::string::npos) return text;
  std::string exponent = text.substr(e + 1);  // "+06", "-05"
  const bool negative = exponent.front() == '-';
  exponent.erase(0, exponent.find_first_not_of("+-0"));
  return text.substr(0, e + 1) + (negative ? "-" : "") + (exponent.empty() ? "0" : exponent);
}

}  // namespace distbench::views
