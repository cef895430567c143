// The table of known GPUs and the PCIe arithmetic (benchmarks/health/hardware_table).
#include "benchmarks/health/hardware_table.hpp"

#include <gtest/gtest.h>

#include <set>

namespace distbench::health {
namespace {

TEST(HardwareTable, PcieBandwidthPerDirectionFollowsTheEncoding) {
  EXPECT_NEAR(pcie_gbps(5, 16), 63.02, 0.01);  // 32 GT/s x 16 lanes x 128/130 / 8
  EXPECT_NEAR(pcie_gbps(4, 16), 31.51, 0.01);
  EXPECT_NEAR(pcie_gbps(3, 16), 15.75, 0.01);
  EXPECT_NEAR(pcie_gbps(2, 16), 8.0, 1e-9);  // 8b/10b
  EXPECT_NEAR(pcie_gbps(1, 8), 2.0, 1e-9);
  EXPECT_NEAR(pcie_gbps(5, 8), pcie_gbps(5, 16) / 2, 1e-9);
  EXPECT_EQ(pcie_gbps(0, 16), 0);
  EXPECT_EQ(pcie_gbps(7, 16), 0);
  EXPECT_EQ(pcie_gbps(5, 0), 0);
}

TEST(HardwareTable, FindsKnownGpusByTheirExactName) {
  const auto h200 = find_gpu_spec("NVIDIA H200");
  ASSERT_TRUE(h200);
  EXPECT_EQ(h200->memory_gbps, 4800);
  EXPECT_EQ(h200->pcie_gen, 5);
  const auto h100 = find_gpu_spec("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(h100);
  EXPECT_EQ(h100->memory_gbps, 3350);
  EXPECT_FALSE(find_gpu_spec("NVIDIA H20"));   // a different GPU, not a prefix match
  EXPECT_FALSE(find_gpu_spec("nvidia h200"));  // names are exact
}

TEST(HardwareTable, EveryEntryIsCompleteAndNamedOnce) {
  std::set<std::string> names;
  for (const GpuSpec& s : gpu_specs()) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_GT(s.memory_gbps, 0) << s.name;
    EXPECT_GT(pcie_gbps(s.pcie_gen, s.pcie_width), 0) << s.name;
    EXPECT_GT(s.fp32_tflops, 0) << s.name;
    EXPECT_FALSE(s.source.empty()) << s.name;
    EXPECT_FALSE(s.short_name.empty()) << s.name;
  }
}

}  // namespace
}  // namespace distbench::health
