// A robust fit of y = x . theta with theta >= 0 (up to three columns: alpha, beta, gamma), on relative error:
// least squares of ln(y / x theta), by Gauss-Newton steps from the fit of (y - x theta) / y.
//
// Times span six decades across a sweep (1 us .. 1 s), and their noise is relative, so each point is weighted by
// 1/y^2: the fit minimises sum w_i ((y_i - x_i theta) / y_i)^2. The robustness weights w_i come from iteratively
// reweighted least squares: Huber's weights first (convex, so that outliers cannot capture the start), then Tukey's
// biweight from there with the scale held, w = (1 - u^2)^2 for |u| < 1 and 0 beyond, u = r / (c s), where r is
// the log ratio ln(y / fitted) (the relative residual for small ones, and symmetric for large ones: a point 30x
// above the line is as far off as one 30x below), s = 1.4826 * median |r| the robust scale (at least `min_scale`,
// so that a near-perfect fit does not refuse points for noise of 0.1 %, and at most `max_scale`) and c = 4.685 (95 %
// efficiency at normal errors). A point with weight 0 does not follow the model: the caller names it a break.
//
// Intervals come from the covariance of the final step, s2 (J' W J)^-1 with J = x / fitted (the log model's
// Jacobian) and s2 = sum w r^2 / (n - k) over the n points of positive weight (at least min_scale^2: exact data get
// intervals of 1 % noise, not of zero width), and Student's t with n - k degrees of freedom. Not a bootstrap over
// cases: a sweep has 10 to 30 sizes and the few smallest alone carry alpha, the few largest alone beta, so a
// resample that misses them cannot see the parameter at all, and the bootstrap's spread would describe which points
// were drawn rather than the parameter; the covariance is also deterministic, which the tests need.
//
// A column that is zero everywhere, or proportional to the columns before it (gamma beside beta when one algorithm
// fixes their ratio), is left out (its value 0, `fitted` false); so is one whose estimate comes out negative.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace distbench::model {

inline constexpr std::size_t kColumns = 3;
using Row = std::array<double, kColumns>;

struct RobustFitOptions {
  double tukey_c = 4.685;
  double min_scale = 0.01;  // 1 %: relative noise below this is not told apart
  // At most 10 %: where most points are far off (a sweep of several regimes: caches, protocols, page faults) the
  // scale would grow until every point is held; capped, a point 1.6x above or below the line (c * 0.1 in log) is
  // refused whatever the others do.
  double max_scale = 0.1;
  double confidence = 0.95;
  int max_iterations = 50;
};

struct RobustFit {
  Row value{};        // theta; 0 for a column left out
  Row low{}, high{};  // the confidence interval of each; equal to value for a column left out
  std::array<bool, kColumns> fitted{};
  std::array<Row, kColumns> covariance{};
  std::vector<double> weight;  // each point's final robustness weight in [0, 1]; 0: refused
  double scale = 0;            // s, the robust scale of the residuals (log ratios)
  double t_quantile = 0;       // Student's t used for the intervals
  std::size_t used = 0;        // points of positive weight
  int iterations = 0;
  bool ok = false;  // false: fewer points of positive weight than columns + 1
};

// Throws nothing; `ok` false when it cannot fit (too few points, y not positive).
RobustFit robust_relative_fit(const std::vector<Row>& x, const std::vector<double>& y,
                              const RobustFitOptions& options = {});

// Student's t quantile at probability p for `dof` degrees of freedom (exact for 1 and 2; for more, the
// Cornish-Fisher expansion around the normal quantile, Abramowitz & Stegun 26.7.5, within 0.2 % from 3 dof on).
double student_t_quantile(double p, double dof);

// x . cov . x: the variance of a prediction x . theta.
double prediction_variance(const RobustFit& fit, const Row& x);

}  // namespace distbench::model
