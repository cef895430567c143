#include "core/measure/stopping.hpp"

#include "core/measure/stats.hpp"

#include <algorithm>
#include <cmath>

namespace distbench {

std::size_t StoppingRule::planned_samples(double sample_s) const {
  if (max_time_s <= 0 || sample_s <= 0) return samples;
  const double fit = std::floor(max_time_s / sample_s);
  const auto fitting = fit >= static_cast<double>(samples) ? samples : static_cast<std::size_t>(fit);
  return std::min(samples, std::max({fitting, min_samples, std::size_t{1}}));
}

bool StoppingRule::done(std::span<const double> taken, double elapsed_s) const {
  if (!noise_mode()) return taken.size() >= samples;
  if (taken.empty()) return false;  // the time limit never ends a case without a sample
  return target_met(taken) || (max_time_s > 0 && elapsed_s >= max_time_s);
}

bool StoppingRule::target_met(std::span<const double> taken) const {
  if (!noise_mode()) return true;
  return taken.size() >= min_samples && median_ci_percent(taken) <= max_noise;
}

}  // namespace distbench
