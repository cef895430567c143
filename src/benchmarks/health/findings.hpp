// What the root keeps of a health check through its phases: every check, shown as a table row as it comes; at the
// end the verdict per node and of the whole cluster, and the Prometheus file.
#pragma once

#include "benchmarks/health/evaluate.hpp"
#include "benchmarks/health/plan.hpp"
#include "benchmarks/health/verdict.hpp"
#include "core/report/reporter.hpp"

#include <string>
#include <utility>
#include <vector>

namespace distbench::health {

// Now, in Unix seconds (the timestamps of the Prometheus file).
double unix_time_now();

class Findings {
 public:
  Findings(Reporter* reporter, const HealthPlan& plan) : reporter_(reporter), plan_(plan) {}

  // Every check counts in the verdicts; the reports (and the Prometheus file) keep every one, or what kept_checks
  // keeps (--detail), by the node count: set it before the first add().
  void set_nodes(std::size_t nodes) { every_check_ = keeps_every_check(plan_.detail, nodes); }
  // The backend's name, for the Prometheus file's distbench_info.
  void set_backend(std::string backend) { backend_ = std::move(backend); }
  void add(std::vector<Check> checks);
  // The verdict per node and of the whole check, as records (and the Prometheus file when asked); the exit code.
  // `abandoned`: why the check stopped early in `last_phase` (empty: it ran to the end).
  int conclude(const Topology& topo, const std::string& abandoned, const std::string& last_phase);
  // The verdict of each node (conclude's), in the topology's order of hosts.
  const std::vector<NodeVerdict>& node_verdicts_concluded() const { return verdicts_; }
  // Records of what was done after the verdict (--slurm-drain's): to the reports as they are, in no verdict.
  void add_after_verdict(const std::vector<Check>& checks);

 private:
  // A node nothing was found against was not checked to the end: not healthy, unknown.
  void mark_unchecked(const Topology& topo, const std::string& last_phase);
  Check cluster_verdict(const std::vector<NodeVerdict>& nodes, const std::string& abandoned) const;

  Reporter* reporter_;
  const HealthPlan& plan_;
  std::vector<Check> all_;   // every check: the verdicts
  std::vector<Check> kept_;  // what the reports were given
  std::vector<NodeVerdict> verdicts_;
  bool every_check_ = true;
  std::string backend_;
};

}  // namespace distbench::health
