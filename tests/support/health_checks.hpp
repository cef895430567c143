// Health's unit tests: checks made of bare figures, and a small run's records (three nodes, nodeC slow to nodeA).
#pragma once

#include "benchmarks/health/health_record.hpp"
#include "benchmarks/health/verdict.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace distbench::health {

// A check per value, named s0, s1, ...: a group of figures to judge.
inline std::vector<Check> figures(const std::vector<double>& values,
                                  const std::string& metric = "link.bandwidth_gbps") {
  std::vector<Check> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    Check c;
    c.subject = fmt::format("s{}", i);
    c.metric = metric;
    c.value = values[i];
    c.unit = "GB/s";
    out.push_back(c);
  }
  return out;
}

inline std::vector<Check*> pointers(std::vector<Check>& checks) {
  std::vector<Check*> out;
  for (auto& c : checks) out.push_back(&c);
  return out;
}

// A small run's records: three nodes' links (nodeC slow to nodeA), a phase's time and the verdicts.
inline std::vector<Record> sample_run() {
  std::vector<Record> out;
  auto add = [&out](std::string phase, std::string subject, std::string host, std::string metric, double value,
                    Status status, std::string why = "") {
    Check c = make_check(std::move(phase), std::move(subject), std::move(host), std::move(metric), value, "1");
    c.status = status;
    c.why = std::move(why);
    out.push_back(check_record(c));
  };
  add("links", "nodeA->nodeB", "", "link.bandwidth_gbps", 1.1, Status::healthy);
  add("links", "nodeB->nodeA", "", "link.bandwidth_gbps", 1.2, Status::healthy);
  add("links", "nodeC->nodeA", "", "link.bandwidth_gbps", 0.012, Status::degraded);
  add("links", "nodeA<->nodeC", "", "link.latency_us", 40, Status::healthy);
  add("phase", "links", "", "phase.seconds", 2.5, Status::healthy);
  add("verdict", "nodeA", "nodeA", "node.status", 0, Status::healthy);
  add("verdict", "nodeC", "nodeC", "node.status", 1, Status::degraded, "nodeC->nodeA \"slow\"");
  add("verdict", "cluster", "", "cluster.status", 1, Status::degraded);
  return out;
}

}  // namespace distbench::health
