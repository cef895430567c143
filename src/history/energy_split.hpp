// E-Divisive's candidate (Matteson & James 2014, with alpha = 1): in a segment z, the split at tau into X = z[0, tau)
// and Y = z[tau, L) that maximises
//   Q(tau) = n m / (n + m) * ( 2/(n m) sum |X_i - Y_j|  -  sum_{i<k} |X_i - X_k| / C(n, 2)  -  sum_{j<l} |Y_j - Y_l|
//            / C(m, 2) ),   n = tau, m = L - tau,
// the energy distance between the two sides scaled by their sizes. The within-side sums grow by one point at a time
// (from the left for X, from the right for Y) and the across sum is the total minus both, so all splits cost O(L^2)
// time and O(L) memory: 1,000 points are about 10^6 absolute differences (a few milliseconds).
#pragma once

#include <cstddef>
#include <span>

namespace distbench::history {

struct EnergySplit {
  bool found = false;  // false: the segment is shorter than two sides of min_side
  std::size_t at = 0;  // tau: the first point of the second side
  double q = 0;        // Q(tau)
};

// The split with both sides at least `min_side` (>= 2) points long maximising Q; the first such on ties.
EnergySplit best_energy_split(std::span<const double> z, std::size_t min_side);

}  // namespace distbench::history
