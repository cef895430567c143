#include "history/shift_tests.hpp"

#include "history/student_t.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace distbench::history {

Moments moments(std::span<const double> values) {
  Moments m;
  m.n = values.size();
  if (m.n == 0) return m;
  double sum = 0;
  for (double v : values) sum += v;
  m.mean = sum / static_cast<double>(m.n);
  if (m.n < 2) return m;
  double squares = 0;
  for (double v : values) squares += (v - m.mean) * (v - m.mean);
  m.variance = squares / static_cast<double>(m.n - 1);
  return m;
}

namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  return (*mid + *std::max_element(v.begin(), mid)) / 2;
}

}  // namespace

double difference_scale(std::span<const double> z) {
  std::vector<double> steps;
  for (std::size_t i = 1; i < z.size(); ++i) steps.push_back(std::fabs(z[i] - z[i - 1]));
  return 1.4826 * median_of(std::move(steps)) / std::numbers::sqrt2;
}

std::vector<double> winsorized(std::span<const double> side, double scale) {
  std::vector<double> out(side.begin(), side.end());
  if (!(scale > 0)) return out;  // quantized values, most of them equal: no noise to measure spikes by
  const double middle = median_of(out);
  for (double& v : out) v = std::clamp(v, middle - kClipScales * scale, middle + kClipScales * scale);
  return out;
}

namespace {

// The test of `shift` with standard error `se` on `dof` degrees of freedom.
ShiftTest shift_test(double shift, double se, double dof, double confidence) {
  ShiftTest t;
  t.shift = shift;
  t.dof = dof;
  if (!(se > 0)) {  // no spread on either side: a difference is certain, equality is too
    t.p = shift == 0 ? 1 : 0;
    t.low = t.high = shift;
    return t;
  }
  t.p = student_t_two_sided_p(shift / se, dof);
  if (!(confidence > 0)) return t;
  const double half = student_t_critical(confidence, dof) * se;
  t.low = shift - half;
  t.high = shift + half;
  return t;
}

}  // namespace

ShiftTest student_test(std::span<const double> before, std::span<const double> after, double confidence) {
  const Moments a = moments(before), b = moments(after);
  if (a.n < 2 || b.n < 2) return {};
  const double na = static_cast<double>(a.n), nb = static_cast<double>(b.n);
  const double dof = na + nb - 2;
  const double pooled = ((na - 1) * a.variance + (nb - 1) * b.variance) / dof;
  return shift_test(b.mean - a.mean, std::sqrt(pooled * (1 / na + 1 / nb)), dof, confidence);
}

ShiftTest prediction_test(std::span<const double> segment, double x, double confidence) {
  const Moments m = moments(segment);
  if (m.n < 2) return {};
  const double se = std::sqrt(m.variance * (1 + 1 / static_cast<double>(m.n)));
  return shift_test(x - m.mean, se, static_cast<double>(m.n - 1), confidence);
}

}  // namespace distbench::history
