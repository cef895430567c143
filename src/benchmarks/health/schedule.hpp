// Who meets whom in the link phase, and whom isolation re-tests: pure functions of node indices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace distbench::health {

using NodePair = std::pair<int, int>;  // two node indices
using Rounds = std::vector<std::vector<NodePair>>;

// The circle method: every pair of `nodes` exactly once, in rounds of disjoint pairs (n-1 rounds for even n, n for
// odd n, where one node rests each round). Every node takes its pairs in round order, so pairs run in parallel
// without a global barrier and without deadlock.
Rounds round_robin(int nodes);

// Which pairs the link phase measures (--links): every pair, the scaled schedule, or (auto) every pair up to
// kEveryPairUpToNodes nodes and the scaled schedule above.
enum class LinkMode { automatic, all, scaled };
inline constexpr int kEveryPairUpToNodes = 32;
inline constexpr int kRandomRings = 1;  // the scaled schedule's seeded random rings

// The scaled schedule's pairs, O(n log n) of them: the ring (i, i+1) and the partners at distances 2^k
// (i, i + 2^k mod n) of the dissemination barrier (Hensgen, Finkel and Manber 1988) and Bruck et al.'s all-to-all
// (1997), which work for any n and cross every bisection of the ring; then `random_rings` rings over seeded random
// permutations of the nodes (HPC Challenge's randomly ordered ring, Luszczek et al. 2006), so that repeated runs with
// other seeds reach other pairs. Each pair once (first < second), in that order; at most
// n (ceil(log2 n) + random_rings) pairs.
std::vector<NodePair> scaled_pairs(int nodes, std::uint64_t seed, int random_rings = kRandomRings);

// `pairs` in rounds of disjoint pairs (a matching each: a node in at most one pair of a round), first fit in the
// order given; each pair keeps its orientation. At most 2 d - 1 rounds for a largest degree d.
Rounds into_rounds(const std::vector<NodePair>& pairs);

struct LinkSchedule {
  LinkMode mode = LinkMode::all;  // what ran: all or scaled (never automatic)
  std::uint64_t seed = 0;
  Rounds rounds;
  std::size_t pairs() const;
  std::vector<NodePair> in_order() const;  // round after round: the order every node takes its pairs in
};

LinkSchedule link_schedule(int nodes, LinkMode mode, std::uint64_t seed);
std::string_view name(LinkMode mode);
// The schedule in words: "every pair (round robin)", "scaled: ring, distances 2^k, 1 random ring (seed 1)".
std::string schedule_words(const LinkSchedule& s);
// Each node's number of pairs (its peers: each pair is there once).
std::vector<int> degrees(int nodes, const Rounds& rounds);

// Isolation: which node of each under-performing pair is to blame. `bad` lists the pairs whose links broke a bound;
// `score` is each node's link figure (higher is better: the median over its pairs of the pair's slower direction)
// to choose the best reference.
//
// A node slow with several different peers (2 or more) is the suspect, and its peers' bad pairs are explained by it;
// a bad pair whose ends are slow with no one else is a suspect link: both ends are re-tested against references, and
// the pair itself alone again (a slow link between sound nodes: a cable, a port).
struct IsolationPlan {
  // Nodes trusted as good: no suspect, else the ends of the best good pair, else (3 nodes or more) the node in the
  // fewest bad pairs with the fastest links; best score first.
  std::vector<int> references;
  std::vector<NodePair> retests;       // (suspect, reference), each suspect once; references spread over suspects
  std::vector<NodePair> link_retests;  // suspect links measured again alone
  std::vector<int> cannot_isolate;     // suspects with no reference to test against (2 nodes, their pair bad)
  // Every re-test, in rounds of disjoint pairs, round after round: the order the isolation phase takes them in.
  std::vector<NodePair> in_order() const;
};
IsolationPlan plan_isolation(int nodes, const std::vector<NodePair>& bad, const std::vector<NodePair>& good,
                             const std::vector<double>& score);

}  // namespace distbench::health
