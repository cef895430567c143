// Each node's NIC rate as read from sysfs (core/sys/nic_rate.hpp), sent by the node's leader in the links phase:
// an information check per node (node.nic.link_gbps, always healthy) and each node's links as a fraction of its NIC
// (node.link.fraction_of_nic, information too). The links' verdicts stay the cluster's median's and the rules'.
#pragma once

#include "benchmarks/health/evaluate.hpp"
#include "core/sys/nic_rate.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace distbench::health {

// What a leader adds to its links-phase result: {"nic": {"interface", "mbps", "source", "note"}}.
void add_nic_sent(nlohmann::json& result, const NicRate& rate);
// Each node's rate as its leader sent it; nullopt where the leader sent none (it did not arrive, an older peer).
std::vector<std::optional<NicRate>> nic_rates_sent(const PhaseResult& phase, const Topology& topo);

// Per node: node.nic.link_gbps (the rate in GB/s, NaN when unknown; the interface and the file read in its limit,
// why it is unknown in its why), and, for a node with a median link among `summaries` (node.link.median_gbps) and a
// known rate, node.link.fraction_of_nic (median link / NIC rate; unit "1").
std::vector<Check> nic_checks(const std::vector<std::optional<NicRate>>& rates, const Topology& topo,
                              const std::vector<Check>& summaries);

}  // namespace distbench::health
