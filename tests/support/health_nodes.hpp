// Health's unit tests: n nodes of one rank each, named node000, node001, ... (the names the judges print).
#pragma once

#include "benchmarks/health/evaluate.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace distbench::health {

inline Topology one_rank_per_node(int n) {
  std::vector<int> node_of_rank;
  std::vector<std::string> hosts;
  for (int i = 0; i < n; ++i) {
    node_of_rank.push_back(i);
    hosts.push_back(fmt::format("node{:03}", i));
  }
  return make_topology(node_of_rank, hosts);
}

}  // namespace distbench::health
