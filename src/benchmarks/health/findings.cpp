#include "benchmarks/health/findings.hpp"

#include "benchmarks/health/health_record.hpp"
#include "benchmarks/health/kept_checks.hpp"
#include "benchmarks/health/prometheus.hpp"
#include "benchmarks/health/verdict.hpp"
#include "core/report/atomic_file.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iterator>

namespace distbench::health {

double unix_time_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void Findings::add(std::vector<Check> checks) {
  std::vector<Check> kept = every_check_ ? checks : kept_checks(checks);
  if (reporter_ != nullptr) {
    for (const Check& c : kept) reporter_->add({check_record(c)});  // one table row each
  }
  kept_.insert(kept_.end(), std::make_move_iterator(kept.begin()), std::make_move_iterator(kept.end()));
  all_.insert(all_.end(), std::make_move_iterator(checks.begin()), std::make_move_iterator(checks.end()));
}

void Findings::add_after_verdict(const std::vector<Check>& checks) {
  if (reporter_ == nullptr) return;
  for (const Check& c : checks) reporter_->add({check_record(c)});
}

void Findings::mark_unchecked(const Topology& topo, const std::string& last_phase) {
  std::vector<Check> unchecked;
  for (const NodeVerdict& v : node_verdicts(topo.hosts, topo.ranks_of_node, all_)) {
    if (v.status != Status::healthy) continue;
    Check c = make_check("verdict", v.host, v.host, "node.checked", kNotMeasured, "");
    c.status = Status::unknown;
    c.why = fmt::format("not checked to the end: the check stopped in phase {}", last_phase);
    unchecked.push_back(std::move(c));
  }
  add(std::move(unchecked));
}

Check Findings::cluster_verdict(const std::vector<NodeVerdict>& nodes, const std::string& abandoned) const {
  const Status overall = overall_status(nodes, all_);
  Check cluster = make_check("verdict", "cluster", "", "cluster.status", static_cast<int>(overall), "");
  cluster.status = overall;
  cluster.why = abandoned;
  for (const Check& c : all_) {  // else the job's own check that decided, if one did
    if (cluster.why.empty() && c.host.empty() && !c.screening && c.status == overall && overall != Status::healthy) {
      cluster.why = describe(c);
    }
  }
  if (cluster.why.empty() && overall != Status::healthy) {  // else the nodes that made it so
    for (const NodeVerdict& v : nodes) {
      if (v.status != Status::healthy)
        cluster.why += fmt::format("{}{} {}", cluster.why.empty() ? "" : ", ", v.host, name(v.status));
    }
  }
  return cluster;
}

int Findings::conclude(const Topology& topo, const std::string& abandoned, const std::string& last_phase) {
  if (!abandoned.empty()) mark_unchecked(topo, last_phase);
  verdicts_ = node_verdicts(topo.hosts, topo.ranks_of_node, all_);
  const std::vector<NodeVerdict>& nodes = verdicts_;
  std::vector<Check> verdicts;
  for (const NodeVerdict& v : nodes) {
    Check c = make_check("verdict", v.host, v.host, "node.status", static_cast<int>(v.status), "");
    c.status = v.status;
    c.why = v.reason;
    verdicts.push_back(std::move(c));
  }
  const Check cluster = cluster_verdict(nodes, abandoned);
  const auto overall = cluster.status;
  verdicts.push_back(cluster);
  add(std::move(verdicts));
  if (!plan_.prom_path.empty()) {
    std::vector<Record> records;
    for (const Check& c : kept_) records.push_back(check_record(c));
    const PromInfo info{backend_, topo.hosts.size(), static_cast<int>(topo.node_of_rank.size()),
                        std::string(name(plan_.level))};
    write_file_atomically(plan_.prom_path, prometheus_text(records, unix_time_now(), info));
  }
  return static_cast<int>(overall);
}

}  // namespace distbench::health
