#include "core/stopping.hpp"

#include "core/stats.hpp"

namespace distbench {

bool StoppingRule::done(std::span<const double> taken, double elapsed_s) const {
  if (!noise_mode()) return taken.size() >= samples;
  if (taken.empty()) return false;  // the time limit never ends a case without a sample
  return target_met(taken) || elapsed_s >= max_time_s;
}

bool StoppingRule::target_met(std::span<const double> taken) const {
  if (!noise_mode()) return true;
  return taken.size() >= min_samples && relative_noise(taken) <= max_noise;
}

}  // namespace distbench
