// Who meets whom in the link phase, and whom isolation re-tests: pure functions of node indices.
#pragma once

#include <utility>
#include <vector>

namespace distbench::health {

using NodePair = std::pair<int, int>;  // two node indices

// The circle method: every pair of `nodes` exactly once, in rounds of disjoint pairs (n-1 rounds for even n, n for
// odd n, where one node rests each round). Every node takes its pairs in round order, so pairs run in parallel
// without a global barrier and without deadlock.
std::vector<std::vector<NodePair>> round_robin(int nodes);

// Isolation: which node of each under-performing pair is to blame. `bad` lists the pairs whose links broke a bound;
// `score` is each node's link figure (higher is better: the median over its pairs of the pair's slower direction)
// to choose the best reference.
struct IsolationPlan {
  // Nodes trusted as good: in no bad pair, else the ends of the best good pair, else (3 nodes or more) the node in
  // the fewest bad pairs with the fastest links.
  std::vector<int> references;
  std::vector<NodePair> retests;    // (suspect, reference), in order; each suspect once
  std::vector<int> cannot_isolate;  // suspects with no reference to test against (2 nodes, their pair bad)
};
IsolationPlan plan_isolation(int nodes, const std::vector<NodePair>& bad, const std::vector<NodePair>& good,
                             const std::vector<double>& score);

}  // namespace distbench::health
