#include "benchmarks/health/schedule.hpp"

#include <algorithm>
#include <set>

namespace distbench::health {

std::vector<std::vector<NodePair>> round_robin(int nodes) {
  std::vector<std::vector<NodePair>> rounds;
  if (nodes < 2) return rounds;
  // Seats 0..m-1 (m even; seat m-1 is "rest" when nodes is odd): seat 0 stays, the others rotate by one each round.
  const int m = nodes % 2 == 0 ? nodes : nodes + 1;
  std::vector<int> seat(m);
  for (int i = 0; i < m; ++i) seat[i] = i;
  for (int r = 0; r < m - 1; ++r) {
    std::vector<NodePair> round;
    for (int i = 0; i < m / 2; ++i) {
      const int a = seat[i], b = seat[m - 1 - i];
      if (a < nodes && b < nodes) round.emplace_back(std::min(a, b), std::max(a, b));
    }
    std::sort(round.begin(), round.end());
    rounds.push_back(std::move(round));
    std::rotate(seat.begin() + 1, seat.end() - 1, seat.end());
  }
  return rounds;
}

IsolationPlan plan_isolation(int nodes, const std::vector<NodePair>& bad, const std::vector<NodePair>& good,
                             const std::vector<double>& score) {
  IsolationPlan plan;
  std::vector<int> bad_pairs(static_cast<std::size_t>(std::max(nodes, 0)), 0);
  std::set<int> suspects;
  for (const auto& [a, b] : bad) {
    suspects.insert(a);
    suspects.insert(b);
    ++bad_pairs[static_cast<std::size_t>(a)];
    ++bad_pairs[static_cast<std::size_t>(b)];
  }
  if (suspects.empty()) return plan;
  auto s = [&score](int n) {
    return n < static_cast<int>(score.size()) &&
                   score[static_cast<std::size_t>(n)] == score[static_cast<std::size_t>(n)]
               ? score[static_cast<std::size_t>(n)]
               : 0.0;
  };
  for (int n = 0; n < nodes; ++n) {
    if (!suspects.contains(n)) plan.references.push_back(n);
  }
  if (plan.references.empty() && !good.empty()) {
    // Every node touches a bad pair: trust the ends of the best good pair (a node with one good link is more likely
    // sound than its partners in bad ones).
    const auto best = *std::max_element(good.begin(), good.end(), [&](const NodePair& x, const NodePair& y) {
      return s(x.first) + s(x.second) < s(y.first) + s(y.second);
    });
    plan.references = {best.first, best.second};
  }
  if (plan.references.empty() && nodes >= 3) {
    // Every pair looks slow (a noisy screening): trust the node in the fewest bad pairs, the fastest among those;
    // the re-tests alone decide.
    int best = 0;
    for (int n = 1; n < nodes; ++n) {
      const auto k = static_cast<std::size_t>(n), b = static_cast<std::size_t>(best);
      if (bad_pairs[k] < bad_pairs[b] || (bad_pairs[k] == bad_pairs[b] && s(n) > s(best))) best = n;
    }
    plan.references = {best};
  }
  if (plan.references.empty()) {
    plan.cannot_isolate.assign(suspects.begin(), suspects.end());
    return plan;
  }
  const int reference =
      *std::max_element(plan.references.begin(), plan.references.end(), [&](int x, int y) { return s(x) < s(y); });
  for (int n : suspects) {
    if (std::find(plan.references.begin(), plan.references.end(), n) == plan.references.end()) {
      plan.retests.emplace_back(n, reference);
    }
  }
  return plan;
}

}  // namespace distbench::health
