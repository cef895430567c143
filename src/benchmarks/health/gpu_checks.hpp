// The GPU checks, judged on the root: what the gpu phase read through NVML on each node (a verdict per reading),
// and the rank phase's GPU figures held to the table of known hardware (hardware_table.hpp).
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

// The rank phase's figures of each GPU rank against its device's datasheet: memory bandwidth (a device copy moves
// each byte twice), h2d and d2h against the PCIe link the GPU is built for, the SGEMM rate. Ranks on host memory:
// one skipped check per node, saying so.
std::vector<Check> spec_checks(const PhaseResult& rank_phase, const Topology& topo, const HealthPlan& plan);

}  // namespace distbench::health
