#include "history/energy_split.hpp"

#include <cmath>
#include <vector>

namespace distbench::history {
namespace {

// within_left[tau]: the sum of |z_i - z_k| over i < k < tau; within_right[tau]: over tau <= i < k < L.
struct WithinSums {
  std::vector<double> left, right;
};

WithinSums within_sums(std::span<const double> z) {
  const std::size_t n = z.size();
  WithinSums w{std::vector<double>(n + 1, 0.0), std::vector<double>(n + 1, 0.0)};
  for (std::size_t tau = 1; tau < n; ++tau) {
    double added = 0;
    for (std::size_t i = 0; i < tau; ++i) added += std::fabs(z[i] - z[tau]);
    w.left[tau + 1] = w.left[tau] + added;
  }
  for (std::size_t tau = n - 1; tau >= 1; --tau) {
    double added = 0;
    for (std::size_t k = tau; k < n; ++k) added += std::fabs(z[tau - 1] - z[k]);
    w.right[tau - 1] = w.right[tau] + added;
  }
  return w;
}

}  // namespace

EnergySplit best_energy_split(std::span<const double> z, std::size_t min_side) {
  EnergySplit best;
  if (min_side < 2 || z.size() < 2 * min_side) return best;
  const WithinSums w = within_sums(z);
  const double total = w.left[z.size()];
  for (std::size_t tau = min_side; tau + min_side <= z.size(); ++tau) {
    const double n = static_cast<double>(tau), m = static_cast<double>(z.size() - tau);
    const double across = total - w.left[tau] - w.right[tau];
    const double energy = 2 * across / (n * m) - w.left[tau] / (n * (n - 1) / 2) - w.right[tau] / (m * (m - 1) / 2);
    const double q = n * m / (n + m) * energy;
    if (!best.found || q > best.q) best = {true, tau, q};
  }
  return best;
}

}  // namespace distbench::history
