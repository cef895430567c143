#include "views/plot_axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace distbench {
namespace {

constexpr double kEps = 1e-9;        // slack for logarithms of exact powers
constexpr std::size_t kMaxTicks = 9;

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

std::vector<AxisTick> linear_ticks(double lo, double hi, TickStyle style) {
  const double step = linear_step(lo, hi);
  std::vector<AxisTick> ticks;
  for (double k = std::ceil(lo / step - kEps); k * step <= hi + step * kEps; k += 1) {
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
  for (int s : {1, 2, 5, 10, 20}) {
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
  static constexpr std::array<std::array<double, 9>, 3> kMultiples = {{
      {1, 0, 0, 0, 0, 0, 0, 0, 0}, {1, 2, 5, 0, 0, 0, 0, 0, 0}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}};
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

}  // namespace

double PlotAxis::fraction(double v) const {
  return (to_axis(v, log) - to_axis(lo, log)) / (to_axis(hi, log) - to_axis(lo, log));
}

bool plottable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

PlotAxis make_axis(double min, double max, bool log, TickStyle style) {
  PlotAxis axis;
  axis.log = log;
  axis.lo = min;
  axis.hi = max;
  if (!(min < max)) {  // one value: a range around it
    if (log) {
      axis.lo = min / 2;
      axis.hi = max * 2;
    } else {
      const double pad = min == 0 ? 1 : std::abs(min) / 10;
      axis.lo = min - pad;
      axis.hi = max + pad;
    }
  }
  if (style == TickStyle::number) round_out(axis);
  if (log) {
    axis.ticks = style == TickStyle::bytes ? power_of_two_ticks(axis.lo, axis.hi, style)
                                           : decade_ticks(axis.lo, axis.hi, style);
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

}  // namespace distbench
