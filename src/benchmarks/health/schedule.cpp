#include "benchmarks/health/schedule.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <unordered_set>

namespace distbench::health {
namespace {

NodePair ordered(int a, int b) { return {std::min(a, b), std::max(a, b)}; }

// SplitMix64 (Steele, Lea and Flood 2014): the same numbers from a seed on every machine and standard library, which
// std::shuffle and the standard distributions do not promise.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // A whole number below `n` (n > 0); the modulo's bias is below n / 2^64.
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

// The nodes in a seeded random order (Fisher-Yates).
std::vector<int> random_order(int nodes, SplitMix64& rng) {
  std::vector<int> order(static_cast<std::size_t>(nodes));
  std::iota(order.begin(), order.end(), 0);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  return order;
}

// The pairs at distance d on the ring of n nodes, walked cycle by cycle (gcd(n, d) cycles of n / gcd nodes), so that
// first fit gives consecutive pairs alternate rounds.
void add_distance(int n, int d, std::vector<NodePair>& out) {
  if (2 * d == n) {  // each node's partner is the node opposite: n / 2 pairs
    for (int i = 0; i < d; ++i) out.push_back({i, i + d});
    return;
  }
  const int cycles = std::gcd(n, d);
  for (int start = 0; start < cycles; ++start) {
    int at = start;
    do {
      const int next = (at + d) % n;
      out.push_back(ordered(at, next));
      at = next;
    } while (at != start);
  }
}

}  // namespace

Rounds round_robin(int nodes) {
  Rounds rounds;
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

std::vector<NodePair> scaled_pairs(int nodes, std::uint64_t seed, int random_rings) {
  std::vector<NodePair> candidates;
  if (nodes < 2) return candidates;
  // Distances 1, 2, 4, ... below n; 2^k and n - 2^k are the same pairs, kept once.
  std::set<int> distances;
  for (long long d = 1; d < nodes; d *= 2) {
    const int e = static_cast<int>(std::min<long long>(d, nodes - d));
    if (distances.insert(e).second) add_distance(nodes, e, candidates);
  }
  SplitMix64 rng(seed);
  for (int r = 0; r < random_rings && nodes >= 3; ++r) {
    const auto order = random_order(nodes, rng);
    for (std::size_t i = 0; i < order.size(); ++i) {
      candidates.push_back(ordered(order[i], order[(i + 1) % order.size()]));
    }
  }
  std::vector<NodePair> out;
  std::unordered_set<std::uint64_t> seen;
  seen.reserve(candidates.size());
  for (const NodePair& p : candidates) {
    const auto key = (static_cast<std::uint64_t>(p.first) << 32) | static_cast<std::uint32_t>(p.second);
    if (seen.insert(key).second) out.push_back(p);
  }
  return out;
}

Rounds into_rounds(const std::vector<NodePair>& pairs) {
  Rounds rounds;
  std::vector<std::vector<bool>> busy;  // per round, per node
  int nodes = 0;
  for (const auto& [a, b] : pairs) nodes = std::max({nodes, a + 1, b + 1});
  for (const auto& p : pairs) {
    const auto a = static_cast<std::size_t>(p.first), b = static_cast<std::size_t>(p.second);
    std::size_t r = 0;
    while (r < rounds.size() && (busy[r][a] || busy[r][b])) ++r;
    if (r == rounds.size()) {
      rounds.emplace_back();
      busy.emplace_back(static_cast<std::size_t>(nodes), false);
    }
    rounds[r].push_back(p);
    busy[r][a] = busy[r][b] = true;
  }
  return rounds;
}

std::size_t LinkSchedule::pairs() const {
  std::size_t n = 0;
  for (const auto& round : rounds) n += round.size();
  return n;
}

std::vector<NodePair> LinkSchedule::in_order() const {
  std::vector<NodePair> out;
  for (const auto& round : rounds) out.insert(out.end(), round.begin(), round.end());
  return out;
}

std::string_view name(LinkMode mode) {
  switch (mode) {
    case LinkMode::automatic: return "auto";
    case LinkMode::all: return "all";
    case LinkMode::scaled: return "scaled";
  }
  return "auto";
}

std::string schedule_words(const LinkSchedule& s) {
  if (s.mode != LinkMode::scaled) return "every pair (round robin)";
  return "scaled: ring, distances 2^k, " + std::to_string(kRandomRings) + " random ring" +
         (kRandomRings == 1 ? "" : "s") + " (seed " + std::to_string(s.seed) + ")";
}

LinkSchedule link_schedule(int nodes, LinkMode mode, std::uint64_t seed) {
  LinkSchedule s;
  s.seed = seed;
  s.mode = mode == LinkMode::automatic ? (nodes <= kEveryPairUpToNodes ? LinkMode::all : LinkMode::scaled) : mode;
  s.rounds = s.mode == LinkMode::all ? round_robin(nodes) : into_rounds(scaled_pairs(nodes, seed));
  return s;
}

std::vector<int> degrees(int nodes, const Rounds& rounds) {
  std::vector<int> d(static_cast<std::size_t>(std::max(nodes, 0)), 0);
  for (const auto& round : rounds) {
    for (const auto& [a, b] : round) {
      ++d[static_cast<std::size_t>(a)];
      ++d[static_cast<std::size_t>(b)];
    }
  }
  return d;
}

std::vector<NodePair> IsolationPlan::in_order() const {
  std::vector<NodePair> all = retests;
  all.insert(all.end(), link_retests.begin(), link_retests.end());
  std::vector<NodePair> out;
  for (const auto& round : into_rounds(all)) out.insert(out.end(), round.begin(), round.end());
  return out;
}

namespace {

// The nodes and links isolation re-tests, from the bad pairs: a node slow with several peers is the suspect; a bad
// pair with no such end is a suspect link, both ends suspects.
struct IsolationSuspects {
  std::vector<std::size_t> bad_peers;  // per node: how many different peers it is slow with
  std::set<int> nodes;
  std::vector<NodePair> links;
};

IsolationSuspects isolation_suspects(int nodes, const std::vector<NodePair>& bad) {
  std::vector<std::set<int>> bad_peers(static_cast<std::size_t>(std::max(nodes, 0)));
  for (const auto& [a, b] : bad) {
    bad_peers[static_cast<std::size_t>(a)].insert(b);
    bad_peers[static_cast<std::size_t>(b)].insert(a);
  }
  IsolationSuspects out;
  for (const auto& peers : bad_peers) out.bad_peers.push_back(peers.size());
  auto peers_of = [&](int n) { return out.bad_peers[static_cast<std::size_t>(n)]; };
  for (int n = 0; n < nodes; ++n) {
    if (peers_of(n) >= 2) out.nodes.insert(n);
  }
  for (const auto& [a, b] : bad) {
    if (peers_of(a) < 2 && peers_of(b) < 2) {
      out.nodes.insert(a);
      out.nodes.insert(b);
      out.links.push_back(ordered(a, b));
    }
  }
  return out;
}

// A node's link score; 0 for a node without one (past the end, or NaN).
double link_score(const std::vector<double>& score, int n) {
  return n < static_cast<int>(score.size()) && score[static_cast<std::size_t>(n)] == score[static_cast<std::size_t>(n)]
             ? score[static_cast<std::size_t>(n)]
             : 0.0;
}

// The nodes trusted as good (IsolationPlan::references, in node order); empty when there is none.
std::vector<int> isolation_references(int nodes, const IsolationSuspects& suspects, const std::vector<NodePair>& good,
                                      const std::vector<double>& score) {
  auto s = [&score](int n) { return link_score(score, n); };
  std::vector<int> references;
  for (int n = 0; n < nodes; ++n) {
    if (!suspects.nodes.contains(n)) references.push_back(n);
  }
  if (references.empty() && !good.empty()) {
    // Every node is a suspect: trust the ends of the best good pair (a node with one good link is more likely sound
    // than its partners in bad ones).
    const auto best = *std::max_element(good.begin(), good.end(), [&](const NodePair& x, const NodePair& y) {
      return s(x.first) + s(x.second) < s(y.first) + s(y.second);
    });
    references = {best.first, best.second};
  }
  if (references.empty() && nodes >= 3) {
    // Every pair looks slow (a noisy screening): trust the node in the fewest bad pairs, the fastest among those;
    // the re-tests alone decide.
    auto peers_of = [&](int n) { return suspects.bad_peers[static_cast<std::size_t>(n)]; };
    int best = 0;
    for (int n = 1; n < nodes; ++n) {
      if (peers_of(n) < peers_of(best) || (peers_of(n) == peers_of(best) && s(n) > s(best))) best = n;
    }
    references = {best};
  }
  return references;
}

// The best reference first; suspects take them in turn, so that their re-tests run side by side. A suspect link is
// re-tested alone when neither end is a reference.
void assign_retests(IsolationPlan& plan, const IsolationSuspects& suspects, const std::vector<double>& score) {
  std::vector<int> by_score = plan.references;
  std::stable_sort(by_score.begin(), by_score.end(),
                   [&](int x, int y) { return link_score(score, x) > link_score(score, y); });
  const auto is_reference = [&](int n) {
    return std::find(plan.references.begin(), plan.references.end(), n) != plan.references.end();
  };
  std::size_t next = 0;
  for (int n : suspects.nodes) {
    if (is_reference(n)) continue;
    plan.retests.emplace_back(n, by_score[next++ % by_score.size()]);
  }
  for (const NodePair& link : suspects.links) {
    if (!is_reference(link.first) && !is_reference(link.second)) plan.link_retests.push_back(link);
  }
}

}  // namespace

IsolationPlan plan_isolation(int nodes, const std::vector<NodePair>& bad, const std::vector<NodePair>& good,
                             const std::vector<double>& score) {
  IsolationPlan plan;
  const IsolationSuspects suspects = isolation_suspects(nodes, bad);
  if (suspects.nodes.empty()) return plan;
  plan.references = isolation_references(nodes, suspects, good, score);
  if (plan.references.empty()) {
    plan.cannot_isolate.assign(suspects.nodes.begin(), suspects.nodes.end());
    return plan;
  }
  assign_retests(plan, suspects, score);
  return plan;
}

}  // namespace distbench::health
