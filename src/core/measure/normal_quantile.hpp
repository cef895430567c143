// The standard normal distribution's quantile: the rank tests' large-sample approximations (compare/) and the robust
// fit's confidence intervals (model/) both read it.
#pragma once

namespace distbench {

// The standard normal CDF at z.
double normal_cdf(double z);

// The standard normal quantile (inverse CDF) at p in (0, 1).
double normal_quantile(double p);

}  // namespace distbench
