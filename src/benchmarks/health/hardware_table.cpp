#include "benchmarks/health/hardware_table.hpp"

namespace distbench::health {

const std::vector<GpuSpec>& gpu_specs() {
  // Figures from the datasheets named: peak memory bandwidth, PCIe generation and width, NVLink total bandwidth and
  // links, dense FP32 without tensor cores.
  static const std::vector<GpuSpec> specs = {
      {"NVIDIA H200", "H200 SXM", 4800, 5, 16, 900, 18, 67, "NVIDIA H200 Tensor Core GPU datasheet (2024)"},
      {"NVIDIA H200 NVL", "H200 NVL", 4800, 5, 16, 900, 0, 60, "NVIDIA H200 Tensor Core GPU datasheet (2024)"},
      {"NVIDIA H100 80GB HBM3", "H100 SXM", 3350, 5, 16, 900, 18, 67, "NVIDIA H100 Tensor Core GPU datasheet (2023)"},
      {"NVIDIA H100 PCIe", "H100 PCIe", 2000, 5, 16, 600, 0, 51, "NVIDIA H100 Tensor Core GPU datasheet (2023)"},
      {"NVIDIA H100 NVL", "H100 NVL", 3900, 5, 16, 600, 0, 60, "NVIDIA H100 Tensor Core GPU datasheet (2023)"},
      {"NVIDIA A100-SXM4-80GB", "A100 SXM 80GB", 2039, 4, 16, 600, 12, 19.5,
       "NVIDIA A100 Tensor Core GPU datasheet (2021)"},
      {"NVIDIA A100-SXM4-40GB", "A100 SXM 40GB", 1555, 4, 16, 600, 12, 19.5,
       "NVIDIA A100 Tensor Core GPU datasheet (2021)"},
      {"NVIDIA A100 80GB PCIe", "A100 PCIe 80GB", 1935, 4, 16, 600, 0, 19.5,
       "NVIDIA A100 Tensor Core GPU datasheet (2021)"},
      {"NVIDIA A100-PCIE-40GB", "A100 PCIe 40GB", 1555, 4, 16, 600, 0, 19.5,
       "NVIDIA A100 Tensor Core GPU datasheet (2021)"},
      {"NVIDIA L40S", "L40S", 864, 4, 16, 0, 0, 91.6, "NVIDIA L40S GPU datasheet (2023)"},
  };
  return specs;
}

std::optional<GpuSpec> find_gpu_spec(std::string_view name) {
  for (const GpuSpec& s : gpu_specs()) {
    if (s.name == name) return s;
  }
  return std::nullopt;
}

double pcie_gbps(int gen, int width) {
  // Transfer rate per lane (GT/s) and the share of it that carries data.
  struct Gen {
    double gts;
    double encoding;
  };
  static constexpr Gen gens[] = {{2.5, 0.8},        {5, 0.8},          {8, 128.0 / 130},
                                 {16, 128.0 / 130}, {32, 128.0 / 130}, {64, 1.0}};
  if (gen < 1 || gen > 6 || width <= 0) return 0;
  const Gen& g = gens[gen - 1];
  return g.gts * g.encoding * width / 8;
}

}  // namespace distbench::health
