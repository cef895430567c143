// When to stop taking samples of one case (nvbench's stdrel criterion, with a robust noise figure).
// Count mode: -n samples, fewer when they would outlast the time budget (never fewer than min_samples); the count is
// planned once from the calibrated sample length, so every rank takes the same number without talking.
// Noise mode: sample until the median's 95% confidence interval is within max_noise percent, after min_samples,
// bounded by the time budget.
#pragma once

#include <cstddef>
#include <span>

namespace distbench {

struct StoppingRule {
  std::size_t samples = 20;      // count mode: samples per case (-n/--iters), at most
  double max_noise = 0.0;        // > 0: noise mode; stop once the median's CI half-width (%) is at or below this
  std::size_t min_samples = 10;  // never stop on a budget or judge the noise with fewer (unless out of time)
  double max_time_s = 0.05;      // seconds of sampling per case; 0: no budget (count mode takes exactly -n)

  bool noise_mode() const { return max_noise > 0.0; }
  // Whether how many samples are taken depends on how long they take (noise mode, or a time budget in count mode).
  bool depends_on_time() const { return noise_mode() || max_time_s > 0; }
  // Count mode: the samples to take when one sample lasts `sample_s` seconds.
  std::size_t planned_samples(double sample_s) const;
  // Noise mode: whether sampling should stop, given the samples so far and the seconds spent sampling this case.
  // It stops when the target is met or the time is spent, but never before the first sample. Count mode: whether
  // `samples` were taken.
  bool done(std::span<const double> taken, double elapsed_s) const;
  // Whether the noise target was met (always true in count mode).
  bool target_met(std::span<const double> taken) const;
};

}  // namespace distbench
