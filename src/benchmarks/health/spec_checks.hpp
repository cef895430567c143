// The rank phase's GPU checks, judged on the root: each GPU rank's figures held to the table of known hardware
// (hardware_table.hpp), and NVML's reading of its GPU under load.
#pragma once

#include "benchmarks/health/evaluate.hpp"

#include <vector>

namespace distbench::health {

// The rank phase's figures of each GPU rank against its device's datasheet: memory bandwidth (a device copy moves
// each byte twice), h2d and d2h against the PCIe link the GPU is built for, the SGEMM rate. Ranks on host memory:
// one skipped check per node, saying so.
std::vector<Check> spec_checks(const PhaseResult& rank_phase, const Topology& topo, const HealthPlan& plan);

}  // namespace distbench::health
