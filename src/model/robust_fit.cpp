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
  Matrix inverse{};    // (X' W X)^-1 over the active columns, zero elsewhere
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

namespace {

// y's fit is defined: as many targets as rows, at least one, every one positive and finite.
bool fittable(const std::vector<Row>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.empty()) return false;
  return std::all_of(y.begin(), y.end(), [](double v) { return v > 0 && std::isfinite(v); });
}

// The columns that are not zero everywhere.
std::array<bool, kColumns> nonzero_columns(const std::vector<Row>& x) {
  std::array<bool, kColumns> active{};
  for (std::size_t j = 0; j < kColumns; ++j) {
    for (const Row& r : x) active[j] = active[j] || r[j] != 0;
  }
  return active;
}

// The active column with the most negative estimate (-1: none is negative).
int most_negative_column(const std::array<bool, kColumns>& active, const Row& theta) {
  int most_negative = -1;
  for (std::size_t j = 0; j < kColumns; ++j) {
    if (active[j] && theta[j] < 0 && (most_negative < 0 || theta[j] < theta[most_negative])) {
      most_negative = static_cast<int>(j);
    }
  }
  return most_negative;
}

// The largest relative change of an estimate from `before` to `after`, or `change` if larger.
double relative_change(const Row& before, const Row& after, double change) {
  for (std::size_t j = 0; j < kColumns; ++j) {
    const double size = std::max(std::fabs(before[j]), std::fabs(after[j]));
    if (size > 0) change = std::max(change, std::fabs(after[j] - before[j]) / size);
  }
  return change;
}

// The state of the iteratively reweighted fit: the points, the columns still standing, the last solution, and per
// point its robustness weight, least-squares weight, target, fitted value and log residual.
struct Reweighting {
  Reweighting(const std::vector<Row>& points, const std::vector<double>& targets)
      : x(points),
        y(targets),
        active(nonzero_columns(points)),
        robust(points.size(), 1.0),
        w(points.size()),
        z(points.size()),
        fitted(points.size()),
        rel(points.size()) {}

  // Solves the weighted problem for targets t with weights `w`, leaving out dependent columns and those that come
  // out negative, until all stand; false when no column is left.
  bool solve(const std::vector<double>& t) {
    for (;;) {
      s = solve_weighted(x, t, w, active);
      if (s.dependent >= 0) {
        active[static_cast<std::size_t>(s.dependent)] = false;
        continue;
      }
      const int negative = most_negative_column(active, s.theta);
      if (negative < 0) break;
      active[static_cast<std::size_t>(negative)] = false;
    }
    return std::any_of(active.begin(), active.end(), [](bool a) { return a; });
  }

  // fitted and rel at the current solution.
  void log_residuals() {
    for (std::size_t i = 0; i < x.size(); ++i) {
      fitted[i] = predict_row(x[i], s.theta);
      rel[i] = fitted[i] > 0 ? std::log(y[i] / fitted[i]) : std::numeric_limits<double>::infinity();
    }
  }

  // s = 1.4826 * median |r|, within the options' bounds.
  double robust_scale(const RobustFitOptions& options) const {
    std::vector<double> magnitudes(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) magnitudes[i] = std::fabs(rel[i]);
    return std::clamp(1.4826 * median_of(magnitudes), options.min_scale, options.max_scale);
  }

  // New robustness weights from the residuals in scales (Huber's, or Tukey's biweight), and from them the next
  // Gauss-Newton problem's weights and targets; returns the largest change of a robustness weight.
  double reweigh(double scale, bool tukey, double tukey_c) {
    double change = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      double u = rel[i] / scale;
      double next = 0;
      if (tukey) {
        u /= tukey_c;
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
    return change;
  }

  const std::vector<Row>& x;
  const std::vector<double>& y;
  std::array<bool, kColumns> active;
  Solved s;
  std::vector<double> robust, w, z, fitted, rel;
};

// On r = ln(y / fitted): Gauss-Newton steps (linearised at the current fit, ln(x theta) ~ ln f + x (theta - theta0)
// / f, a weighted least-squares problem with targets f (1 + ln(y / f)) and weights robust / f^2), each with
// robustness weights from the last residuals. Huber's weights first (a convex loss: one solution whatever the start,
// so gross outliers cannot capture the line), the scale re-estimated each round; then Tukey's biweight from there
// with the scale held, which gives the points far off weight 0 (an MM-estimate in spirit). False when no column is
// left standing.
bool reweight_until_settled(Reweighting& state, RobustFit& fit, const RobustFitOptions& options) {
  bool tukey = false;
  int phase_rounds = 0;
  for (int iteration = 0; iteration < 2 * options.max_iterations; ++iteration) {
    state.log_residuals();
    if (!tukey) fit.scale = state.robust_scale(options);
    const double weights_change = state.reweigh(fit.scale, tukey, options.tukey_c);
    const Row before = state.s.theta;
    if (!state.solve(state.z)) return false;
    const double change = relative_change(before, state.s.theta, weights_change);
    fit.iterations = iteration + 1;
    ++phase_rounds;
    if (change < 1e-9 || phase_rounds >= options.max_iterations) {
      if (tukey) break;
      tukey = true;
      phase_rounds = 0;
    }
  }
  return true;
}

// The final estimates and weights, and intervals from the last step's covariance, s2 (J' W J)^-1 with J = x / fitted
// (the log model's Jacobian); `ok` when enough points of positive weight are left for them.
void set_intervals(const Reweighting& state, RobustFit& fit, const RobustFitOptions& options) {
  std::size_t k = 0;
  for (bool a : state.active) k += a ? 1 : 0;
  double ss = 0;
  fit.used = 0;
  for (std::size_t i = 0; i < state.x.size(); ++i) {
    if (state.robust[i] <= 0) continue;
    ++fit.used;
    const double f = predict_row(state.x[i], state.s.theta);
    const double r = f > 0 ? std::log(state.y[i] / f) : 0.0;
    ss += state.robust[i] * r * r;
  }
  fit.weight = state.robust;
  fit.fitted = state.active;
  fit.value = state.s.theta;
  if (fit.used < k + 1) return;
  const double dof = static_cast<double>(fit.used - k);
  // At least the scale's floor: noise below it is not told apart, so exact data get intervals of that noise, not
  // intervals of zero width.
  const double s2 = std::max(ss / dof, options.min_scale * options.min_scale);
  fit.t_quantile = student_t_quantile(0.5 + options.confidence / 2, dof);
  for (std::size_t r = 0; r < kColumns; ++r) {
    for (std::size_t c = 0; c < kColumns; ++c) fit.covariance[r][c] = s2 * state.s.inverse[r][c];
  }
  for (std::size_t j = 0; j < kColumns; ++j) {
    const double half = state.active[j] ? fit.t_quantile * std::sqrt(std::max(0.0, fit.covariance[j][j])) : 0.0;
    fit.low[j] = fit.value[j] - half;
    fit.high[j] = fit.value[j] + half;
  }
  fit.ok = true;
}

}  // namespace

RobustFit robust_relative_fit(const std::vector<Row>& x, const std::vector<double>& y,
                              const RobustFitOptions& options) {
  RobustFit fit;
  fit.weight.assign(x.size(), 1.0);
  if (!fittable(x, y)) return fit;
  Reweighting state(x, y);
  // The start: least squares on the relative error (weights 1 / y^2).
  for (std::size_t i = 0; i < x.size(); ++i) state.w[i] = 1 / (y[i] * y[i]);
  if (!state.solve(y)) return fit;
  if (!reweight_until_settled(state, fit, options)) return fit;
  set_intervals(state, fit, options);
  return fit;
}

}  // namespace distbench::model
