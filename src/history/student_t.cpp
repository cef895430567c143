#include "history/student_t.hpp"

#include <cmath>
#include <limits>

namespace distbench::history {
namespace {

// The continued fraction of I_x(a, b) (the front factor x^a (1-x)^b / (a B(a, b)) apart), by the modified Lentz
// method: d_1 = 1, then d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m)), d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)
// (a + 2m + 1)). It converges fast for x < (a + 1) / (a + b + 2); the caller uses the symmetry I_x(a, b) =
// 1 - I_{1-x}(b, a) beyond.
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr int kMaxTerms = 500;
  auto nonzero = [](double v) { return std::fabs(v) < kTiny ? kTiny : v; };
  double c = 1;
  double d = 1 / nonzero(1 - (a + b) * x / (a + 1));
  double h = d;
  for (int m = 1; m <= kMaxTerms; ++m) {
    const double two_m = 2.0 * m;
    const double even = m * (b - m) * x / ((a + two_m - 1) * (a + two_m));
    d = 1 / nonzero(1 + even * d);
    c = nonzero(1 + even / c);
    h *= d * c;
    const double odd = -(a + m) * (a + b + m) * x / ((a + two_m) * (a + two_m + 1));
    d = 1 / nonzero(1 + odd * d);
    c = nonzero(1 + odd / c);
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < 1e-15) break;
  }
  return h;
}

}  // namespace

double regularized_incomplete_beta(double a, double b, double x) {
  if (!(x > 0)) return 0;
  if (!(x < 1)) return 1;
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double student_t_two_sided_p(double t, double dof) {
  if (std::isnan(t)) return 1;
  if (std::isinf(t)) return 0;
  const double t2 = t * t;
  return regularized_incomplete_beta(dof / 2, 0.5, dof / (dof + t2));
}

double student_t_critical(double confidence, double dof) {
  const double target = 1 - confidence;
  double low = 0, high = 1;
  while (student_t_two_sided_p(high, dof) > target && high < 1e12) high *= 2;
  for (int i = 0; i < 200 && high - low > 1e-10 * high; ++i) {
    const double mid = (low + high) / 2;
    (student_t_two_sided_p(mid, dof) > target ? low : high) = mid;
  }
  return (low + high) / 2;
}

}  // namespace distbench::history
