// What known GPUs can do, from their makers' datasheets: the figure a measured bandwidth or rate is held to, so that
// a health check says "74 % of the H200's memory bandwidth" instead of a bare number. Looked up by the name NVML and
// CUDA give the device ("NVIDIA H200"). docs/health.md lists the table and its sources.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::health {

struct GpuSpec {
  std::string name;        // as NVML / CUDA name it
  std::string short_name;  // "H200 SXM"
  double memory_gbps = 0;  // peak memory bandwidth, GB/s (reads and writes together)
  int pcie_gen = 0;        // the host link the GPU is built for
  int pcie_width = 0;
  double nvlink_gbps = 0;  // total NVLink bandwidth, both directions, GB/s (0: none)
  int nvlink_links = 0;
  double fp32_tflops = 0;  // dense FP32 (no tensor cores): what an SGEMM can reach
  std::string source;      // the datasheet
};

// Every GPU the table knows.
const std::vector<GpuSpec>& gpu_specs();
// The spec of the GPU named `name` (exactly as NVML/CUDA give it), or nullopt.
std::optional<GpuSpec> find_gpu_spec(std::string_view name);

// A PCIe link's bandwidth in one direction, GB/s, before protocol overheads: lanes x transfer rate x encoding
// (8b/10b up to Gen2, 128b/130b Gen3-5, 1 for Gen6's FLIT mode). 0 for an unknown generation.
double pcie_gbps(int gen, int width);

// The fractions of the spec below which a figure is degraded (measured on an H200: docs/health.md).
struct SpecFractions {
  double memory = 0.6;     // a device copy moves each byte twice: 2 x copy bandwidth against memory_gbps
  double host_link = 0.6;  // h2d and d2h against the PCIe link the GPU is built for
  double gemm = 0.5;       // SGEMM against fp32_tflops
};

}  // namespace distbench::health
