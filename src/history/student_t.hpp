// Student's t distribution, exactly enough for p-values far in the tail (the change points' tests ask for p below
// 1e-4 and report p of 1e-10): the two-sided p-value through the regularized incomplete beta function, evaluated by
// its continued fraction (modified Lentz), and the two-sided critical value by bisection on it.
#pragma once

namespace distbench::history {

// The regularized incomplete beta function I_x(a, b) for a, b > 0 and x in [0, 1].
double regularized_incomplete_beta(double a, double b, double x);

// P(|T| >= |t|) for Student's t with `dof` > 0 degrees of freedom: 0 for an infinite t, 1 for a NaN one.
double student_t_two_sided_p(double t, double dof);

// The t >= 0 with P(|T| >= t) = 1 - confidence (confidence in (0, 1)): the half-width of a confidence interval in
// standard errors. Within 1e-9 relative.
double student_t_critical(double confidence, double dof);

}  // namespace distbench::history
