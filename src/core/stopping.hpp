// When to stop taking samples of one case: a fixed count, or a noise target bounded in samples and time
// (nvbench's stdrel criterion).
#pragma once

#include <cstddef>
#include <span>

namespace distbench {

struct StoppingRule {
  std::size_t samples = 20;    // fixed mode: exactly this many samples (-n/--iters)
  double max_noise = 0.0;      // > 0: noise mode; stop once the relative noise (%) is at or below this
  std::size_t min_samples = 10;  // noise mode: never judge on fewer samples
  double max_time_s = 10.0;    // noise mode: stop after this much sampling time even above the target

  bool noise_mode() const { return max_noise > 0.0; }
  // Whether sampling should stop, given the samples so far and the seconds spent sampling this case. Noise mode
  // stops when the target is met or the time is spent, but never before the first sample.
  bool done(std::span<const double> samples, double elapsed_s) const;
  // Whether the noise target was met (always true in fixed mode).
  bool target_met(std::span<const double> samples) const;
};

}  // namespace distbench
