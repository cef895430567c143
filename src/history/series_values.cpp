#include "history/series_values.hpp"

#include <fmt/format.h>

#include <cmath>

namespace distbench::history {

double metric_value(const Point& p, compare::CompareMetric metric) {
  switch (metric) {
    case compare::CompareMetric::time: return p.time_us;
    case compare::CompareMetric::busbw: return p.busbw_gbps;
    case compare::CompareMetric::algbw: return p.algbw_gbps;
  }
  return kNotMeasured;
}

SeriesValues series_values(const Series& s, compare::CompareMetric metric) {
  SeriesValues out;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const Point& p = s.points[i];
    const double v = metric_value(p, metric);
    if (!(std::isfinite(v) && v > 0) || p.wrong > 0) continue;  // NaN wrong: not checked
    out.index.push_back(i);
    out.value.push_back(v);
    out.log_value.push_back(std::log(v));
    out.time_us.push_back(p.time_us);
  }
  return out;
}

std::string run_words(const Point& p) {
  return p.run_label.empty() ? fmt::format("run {}", p.run) : fmt::format("run {} ({})", p.run, p.run_label);
}

}  // namespace distbench::history
