// The root's judgement of each phase: the figures the ranks sent, turned into checks (verdict.hpp).
#pragma once

#include "benchmarks/health/judge.hpp"
#include "benchmarks/health/phase_runner.hpp"
#include "benchmarks/health/plan.hpp"
#include "benchmarks/health/schedule.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace distbench::health {

// Where the ranks are: nodes in order of their first rank.
struct Topology {
  std::vector<std::string> hosts;  // per node
  std::vector<int> node_of_rank;
  std::vector<std::vector<int>> ranks_of_node;
  std::vector<int> leaders;  // first rank of each node
  const std::string& host_of(int rank) const {
    return hosts[static_cast<std::size_t>(node_of_rank[static_cast<std::size_t>(rank)])];
  }
  std::string link_name(int from, int to) const;  // "nodeA->nodeB"
};
Topology make_topology(const std::vector<int>& node_of_rank, const std::vector<std::string>& host_of_rank);

// Ranks that did not arrive (failed: the node is named), and ranks whose body failed: failed when they are the only
// trouble, unknown when they were waiting for a rank that did not arrive. When the root (`root`) was late itself,
// it is the one named (failed), and the ranks it did not hear from are unknown.
std::vector<Check> arrival_checks(const PhaseResult& phase, const Topology& topo, double timeout_s, int root);
// The root, `behind_s` seconds behind the others in `phase` (stopped or starved): its node failed.
Check root_late_check(const std::string& phase, const Topology& topo, int root, double behind_s, double timeout_s);

// What a screening phase (every rank or node measuring at once) leaves for its confirmation: the bound its group
// gave, and the subjects (ranks, or nodes) that broke it, to be re-tested alone.
struct Screening {
  std::map<std::string, RelativeBound> bounds;       // per metric
  std::vector<int> suspects;                         // ascending
  double bound_of(const std::string& metric) const;  // 0 when none
};

// Memory read-back per rank (a verdict), copy bandwidth and host<->device bandwidths (screening: suspects re-tested
// alone).
std::vector<Check> rank_checks(const PhaseResult& phase, const Topology& topo, const HealthPlan& plan, Screening& copy);
// Clock skew per node; also the steady-clock offset of each node from the root's (for stragglers), in ns.
std::vector<Check> clock_checks(const PhaseResult& phase, const Topology& topo, const HealthPlan& plan,
                                std::vector<double>& steady_offset_ns);
// One check of bandwidth and one of correctness per group; `groups` the ranks of each group, `subject` its name.
// With `screening`, bandwidths are judged against each other and the groups that break the bound are its suspects.
std::vector<Check> allreduce_checks(const PhaseResult& phase, const std::string& scope,
                                    const std::vector<std::vector<int>>& groups,
                                    const std::vector<std::string>& subjects, const std::vector<std::string>& hosts,
                                    const HealthPlan& plan, Screening* screening);
// Confirmation: the suspects of the rank and node screenings, re-tested alone, held to the screenings' bounds.
std::vector<Check> confirm_checks(const PhaseResult& phase, const Topology& topo, const Screening& copy,
                                  const Screening& node, const HealthPlan& plan);

// The link matrix: directed bandwidths and pair latencies, judged against the cluster's median.
struct LinkJudgement {
  std::vector<Check> checks;
  std::vector<NodePair> bad, good;  // pairs (first < second) with a link beyond a bound, and the rest
  std::vector<double> score;        // each node's median over its pairs of the pair's slower direction
  std::optional<RelativeBound> bandwidth_bound;
  // Per node, of the bandwidths of its links (both directions): the lowest, naming the peer at its other end, and
  // the median (node.link.min_gbps, node.link.median_gbps): information, always healthy, kept whatever --detail.
  std::vector<Check> node_summaries;
};
LinkJudgement link_checks(const PhaseResult& phase, const Topology& topo, const HealthPlan& plan);
// Isolation: the re-tests of suspects against a reference, held to the link phase's bounds (and rules).
std::vector<Check> isolation_checks(const PhaseResult& phase, const Topology& topo, const IsolationPlan& iso,
                                    const LinkJudgement& links, const HealthPlan& plan);

// Stragglers: ranks last to arrive in most iterations, by a clear margin (arrivals aligned with clock offsets),
// because their own work is slower.
std::vector<Check> straggler_checks(const PhaseResult& phase, const Topology& topo, const HealthPlan& plan,
                                    const std::vector<double>& steady_offset_ns);

// Applies the rules file's rules and --expect-busbw.
void apply_plan_rules(std::vector<Check>& checks, const HealthPlan& plan);

}  // namespace distbench::health
