#include "model/robust_fit.hpp"

#include "core/measure/normal_quantile.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace distbench::model {
namespace {

using Matrix = std::array<Row, kColumns>;

// Relative pivot below which a column counts as a combination of the ones before it.
constexpr double kCollinear = 1e-9;
// Huber's tuning constant on residuals in robust scales: 95 % efficiency at normal errors.
constexpr double kHuberK = 1.345;

struct Solved {
  Row theta{};
  Matrix inverse{};  // (X' W X)^-1 over the active columns, zero elsewhere
  int dependent = -1;  // a column found to be a combination of the others (-1: none)
};

// Weighted least squares over the active columns: minimise sum w_i (y_i - x_i theta)^2. Columns are scaled to unit
// norm before elimination, so that alpha (seconds) and beta (seconds per byte) compare. Gauss-Jordan on the normal
// equations (at most 3 x 3).
Solved solve_weighted(const std::vector<Row>& x, const std::vector<double>& y, const std::vector<double>& w,
                      const std::array<bool, kColumns>& active) {
  std::array<int, kColumns> cols{};
  int k = 0;
  for (int j = 0; j < static_cast<int>(kColumns); ++j) {
    if (active[j]) cols[k++] = j;
  }
  Matrix a{};
  Row b{}, norm{};
  for (int c = 0; c < k; ++c) {
    double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) s += w[i] * x[i][cols[c]] * x[i][cols[c]];
    norm[c] = s > 0 ? std::sqrt(s) : 1;
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (int r = 0; r < k; ++r) {
      const double xr = x[i][cols[r]] / norm[r];
      b[r] += w[i] * xr * y[i];
      for (int c = 0; c < k; ++c) a[r][c] += w[i] * xr * x[i][cols[c]] / norm[c];
    }
  }
  Matrix inv{};
  for (int r = 0; r < k; ++r) inv[r][r] = 1;
  Solved out;
  for (int p = 0; p < k; ++p) {
    if (!(std::fabs(a[p][p]) > kCollinear)) {  // elimination in column order: the later column is the dependent one
      out.dependent = cols[p];
      return out;
    }
    const double d = a[p][p];
    for (int c = 0; c < k; ++c) {
      a[p][c] /= d;
      inv[p][c] /= d;
    }
    b[p] /= d;
    for (int r = 0; r < k; ++r) {
      if (r == p) continue;
      const double f = a[r][p];
      for (int c = 0; c < k; ++c) {
        a[r][c] -= f * a[p][c];
        inv[r][c] -= f * inv[p][c];
      }
      b[r] -= f * b[p];
    }
  }
  for (int r = 0; r < k; ++r) {
    out.theta[cols[r]] = b[r] / norm[r];
    for (int c = 0; c < k; ++c) out.inverse[cols[r]][cols[c]] = inv[r][c] / (norm[r] * norm[c]);
  }
  return out;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  double m = *mid;
  if (v.size() % 2 == 0) m = (m + *std::max_element(v.begin(), mid)) / 2;
  return m;
}

double predict_row(const Row& x, const Row& theta) {
  double s = 0;
  for (std::size_t j = 0; j < kColumns; ++j) s += x[j] * theta[j];
  return s;
}

}  // namespace

double student_t_quantile(double p, double dof) {
  if (dof <= 1.5) return std::tan(std::numbers::pi * (p - 0.5));
  if (dof <= 2.5) return (2 * p - 1) / std::sqrt(2 * p * (1 - p));
  const double x = normal_quantile(p);
  const double x2 = x * x, x3 = x2 * x, x5 = x3 * x2, x7 = x5 * x2, x9 = x7 * x2;
  const double g1 = (x3 + x) / 4;
  const double g2 = (5 * x5 + 16 * x3 + 3 * x) / 96;
  const double g3 = (3 * x7 + 19 * x5 + 17 * x3 - 15 * x) / 384;
  const double g4 = (79 * x9 + 776 * x7 + 1482 * x5 - 1920 * x3 - 945 * x) / 92160;
  const double v = dof;
  return x + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

double prediction_variance(const RobustFit& fit, const Row& x) {
  double s = 0;
  for (std::size_t r = 0; r < kColumns; ++r) {
    for (std::size_t c = 0; c < kColumns; ++c) s += x[r] * fit.covariance[r][c] * x[c];
  }
  return s;
}

RobustFit robust_relative_fit(const std::vector<Row>& x, const std::vector<double>& y,
                              const RobustFitOptions& options) {
  RobustFit fit;
  const std::size_t n = x.size();
  fit.weight.assign(n, 1.0);
  if (n != y.size() || n == 0) return fit;
  for (double v : y) {
    if (!(v > 0) || !std::isfinite(v)) return fit;
  }
  std::array<bool, kColumns> active{};
  for (std::size_t j = 0; j < kColumns; ++j) {
    for (const Row& r : x) active[j] = active[j] || r[j] != 0;
  }
  std::vector<double> robust(n, 1.0), w(n), z(n), fitted(n), rel(n);
  // Solves the weighted problem for targets t with weights `w`, leaving out dependent columns and those that come
  // out negative, until all stand; false when no column is left.
  Solved s;
  const auto solve = [&](const std::vector<double>& t) {
    for (;;) {
      s = solve_weighted(x, t, w, active);
      if (s.dependent >= 0) {
        active[static_cast<std::size_t>(s.dependent)] = false;
        continue;
      }
      int most_negative = -1;
      for (std::size_t j = 0; j < kColumns; ++j) {
        if (active[j] && s.theta[j] < 0 && (most_negative < 0 || s.theta[j] < s.theta[most_negative])) {
          most_negative = static_cast<int>(j);
        }
      }
      if (most_negative < 0) break;
      active[static_cast<std::size_t>(most_negative)] = false;
    }
    return std::any_of(active.begin(), active.end(), [](bool a) { return a; });
  };
  // The start: least squares on the relative error (weights 1 / y^2).
  for (std::size_t i = 0; i < n; ++i) w[i] = 1 / (y[i] * y[i]);
  if (!solve(y)) return fit;
  // Then, on r = ln(y / fitted): Gauss-Newton steps (linearised at the current fit, ln(x theta) ~ ln f + x (theta -
  // theta0) / f, a weighted least-squares problem with targets f (1 + ln(y / f)) and weights robust / f^2), each
  // with robustness weights from the last residuals. Huber's weights first (a convex loss: one solution whatever the
  // start, so gross outliers cannot capture the line), the scale re-estimated each round; then Tukey's biweight
  // from there with the scale held, which gives the points far off weight 0 (an MM-estimate in spirit).
  bool tukey = false;
  int phase_rounds = 0;
  for (int iteration = 0; iteration < 2 * options.max_iterations; ++iteration) {
    for (std::size_t i = 0; i < n; ++i) {
      fitted[i] = predict_row(x[i], s.theta);
      rel[i] = fitted[i] > 0 ? std::log(y[i] / fitted[i]) : std::numeric_limits<double>::infinity();
    }
    if (!tukey) {
      std::vector<double> magnitudes(n);
      for (std::size_t i = 0; i < n; ++i) magnitudes[i] = std::fabs(rel[i]);
      fit.scale = std::clamp(1.4826 * median_of(magnitudes), options.min_scale, options.max_scale);
    }
    double change = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double u = rel[i] / fit.scale;
      double next = 0;
      if (tukey) {
        u /= options.tukey_c;
        next = std::fabs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0.0;  // also 0 for an infinite u
      } else {
        next = std::fabs(u) <= kHuberK ? 1.0 : kHuberK / std::fabs(u);
      }
      change = std::max(change, std::fabs(next - robust[i]));
      robust[i] = next;
      const bool usable = fitted[i] > 0 && robust[i] > 0;
      w[i] = usable ? robust[i] / (fitted[i] * fitted[i]) : 0.0;
      z[i] = usable ? fitted[i] * (1 + rel[i]) : 0.0;
    }
    const Row before = s.theta;
    if (!solve(z)) return fit;
    for (std::size_t j = 0; j < kColumns; ++j) {
      const double size = std::max(std::fabs(before[j]), std::fabs(s.theta[j]));
      if (size > 0) change = std::max(change, std::fabs(s.theta[j] - before[j]) / size);
    }
    fit.iterations = iteration + 1;
    ++phase_rounds;
    if (change < 1e-9 || phase_rounds >= options.max_iterations) {
      if (tukey) break;
      tukey = true;
      phase_rounds = 0;
    }
  }
  // Intervals from the last step's covariance, s2 (J' W J)^-1 with J = x / fitted (the log model's Jacobian).
  std::size_t k = 0;
  for (bool a : active) k += a ? 1 : 0;
  double ss = 0;
  fit.used = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (robust[i] <= 0) continue;
    ++fit.used;
    const double f = predict_row(x[i], s.theta);
    const double r = f > 0 ? std::log(y[i] / f) : 0.0;
    ss += robust[i] * r * r;
  }
  fit.weight = robust;
  fit.fitted = active;
  fit.value = s.theta;
  if (fit.used < k + 1) return fit;
  const double dof = static_cast<double>(fit.used - k);
  // At least the scale's floor: noise below it is not told apart, so exact data get intervals of that noise, not
  // intervals of zero width.
  const double s2 = std::max(ss / dof, options.min_scale * options.min_scale);
  fit.t_quantile = student_t_quantile(0.5 + options.confidence / 2, dof);
  for (std::size_t r = 0; r < kColumns; ++r) {
    for (std::size_t c = 0; c < kColumns; ++c) fit.covariance[r][c] = s2 * s.inverse[r][c];
  }
  for (std::size_t j = 0; j < kColumns; ++j) {
    const double half = active[j] ? fit.t_quantile * std::sqrt(std::max(0.0, fit.covariance[j][j])) : 0.0;
    fit.low[j] = fit.value[j] - half;
    fit.high[j] = fit.value[j] + half;
  }
  fit.ok = true;
  return fit;
}

}  // namespace distbench::model
