#include "history/side_change.hpp"

#include <cmath>
#include <span>
#include <vector>

namespace distbench::history {
namespace {

double geometric_mean_of(const std::vector<double>& v, std::size_t from, std::size_t to) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t i = from; i < to; ++i) {
    if (!(std::isfinite(v[i]) && v[i] > 0)) continue;
    sum += std::log(v[i]);
    ++n;
  }
  return n > 0 ? std::exp(sum / static_cast<double>(n)) : kNotMeasured;
}

std::span<const double> log_span(const SeriesValues& v, std::size_t from, std::size_t to) {
  return std::span<const double>(v.log_value).subspan(from, to - from);
}

double worse_of(const SideChange& f, compare::CompareMetric metric) {
  const double change = std::expm1(f.test.shift);
  return metric == compare::CompareMetric::time ? change : -change;
}

}  // namespace

SideChange side_change(const SeriesValues& v, std::size_t base_from, std::size_t base_to, std::size_t cand_from,
                       std::size_t cand_to, double confidence, compare::CompareMetric metric) {
  SideChange f;
  const double scale = difference_scale(v.log_value);
  const std::vector<double> base = winsorized(log_span(v, base_from, base_to), scale);
  f.base_runs = base_to - base_from;
  f.cand_runs = cand_to - cand_from;
  const std::vector<double> cand = f.cand_runs == 1 ? std::vector<double>{v.log_value[cand_from]}
                                                    : winsorized(log_span(v, cand_from, cand_to), scale);
  f.base = std::exp(moments(base).mean);
  f.cand = std::exp(moments(cand).mean);
  const bool time = metric == compare::CompareMetric::time;
  f.base_time = time ? f.base : geometric_mean_of(v.time_us, base_from, base_to);
  f.cand_time = time ? f.cand : geometric_mean_of(v.time_us, cand_from, cand_to);
  f.test = f.cand_runs == 1 ? prediction_test(base, cand.front(), confidence) : student_test(base, cand, confidence);
  return f;
}

GateRule gate_rule(const SideChange& f, const compare::CompareOptions& o, double level) {
  const double worse = worse_of(f, o.metric);
  const double moved_us = (worse > 0 ? 1 : -1) * (f.cand_time - f.base_time);
  if (!(f.test.p < level)) return GateRule::not_significant;
  if (!(std::fabs(worse) > o.threshold)) return GateRule::within_threshold;
  if (!(moved_us > o.floor_us)) return GateRule::under_floor;
  return GateRule::passed;
}

compare::Verdict gate_verdict(GateRule rule, const SideChange& f, compare::CompareMetric metric) {
  if (rule != GateRule::passed) return compare::Verdict::same;
  return worse_of(f, metric) > 0 ? compare::Verdict::slower : compare::Verdict::faster;
}

}  // namespace distbench::history
