// The gpu phase's checks, judged on the root: what it read through NVML on each node, a verdict per reading (the
// rank phase's GPU figures: spec_checks.hpp).
#pragma once

#include "benchmarks/health/evaluate.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace distbench::health {

// Per node: the GPU count (against --gpus-per-node, else the cluster's majority); per GPU: ECC, retired pages and
// remapped rows, clock event reasons, temperature and power against their limits, the PCIe link against its maximum
// and the GPU's design, NVLink links and errors; the XIDs of the kernel log and those seen during the phase; the
// copies between the node's GPUs. A reading that could not be made is a skipped check with the reason.
std::vector<Check> gpu_checks(const PhaseResult& phase, const Topology& topo, const HealthPlan& plan);

// The same for one node's result (the gpu phase's JSON of its first rank); `majority_count` the GPU count most
// nodes have (0: none to compare with).
std::vector<Check> node_gpu_checks(const nlohmann::json& node, const std::string& host, const HealthPlan& plan,
                                   int majority_count);

}  // namespace distbench::health
