// The GPU checks (benchmarks/health/gpu_checks and spec_checks): NVML's readings of a node judged reading by
// reading, the GPU count against the option or the majority, XIDs, copies between GPUs, and the rank phase's figures
// against the table of known hardware. Each check is shown failing on the reading it exists for.
#include "benchmarks/health/gpu_checks.hpp"
#include "benchmarks/health/spec_checks.hpp"
#include "core/sys/gpu_readings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

namespace distbench::health {
namespace {

using ::testing::HasSubstr;

// One H200 as NVML reads it when all is well (the shape of read_gpu_state's JSON).
nlohmann::json healthy_gpu(int index = 0) {
  return {{"index", index},
          {"name", "NVIDIA H200"},
          {"bus_id", "00000000:1B:00.0"},
          {"ecc_enabled", true},
          {"ecc_volatile_uncorrected", 0},
          {"ecc_volatile_corrected", 0},
          {"ecc_aggregate_uncorrected", 0},
          {"ecc_aggregate_corrected", 2},
          {"remapped_rows", {{"correctable", 0}, {"uncorrectable", 0}, {"pending", false}, {"failure", false}}},
          {"clock_event_reasons", 1},  // idle
          {"temperature_c", 31},
          {"temperature_slowdown_c", 87},
          {"power_w", 74.5},
          {"power_limit_w", 700},
          {"sm_clock_mhz", 345},
          {"sm_clock_max_mhz", 1980},
          {"pcie_gen", 1},
          {"pcie_width", 16},
          {"pcie_max_gen", 5},
          {"pcie_max_width", 16},
          {"unavailable", {{"retired_pages_pending", "Not Supported"}}}};
}

nlohmann::json node_with(std::vector<nlohmann::json> gpus) {
  nlohmann::json n = {{"nvml", {{"driver", "580.159"}, {"cuda_driver", "13.0"}, {"count", gpus.size()}}},
                      {"xid_events", {{"listening", true}, {"events", nlohmann::json::array()}}},
                      {"kernel_xids", {{"readable", true}, {"records", 100}, {"xids", nlohmann::json::array()}}},
                      {"peer_copies", {{"gpus", {"0 (NVIDIA H200)"}}, {"skipped", "1 GPU visible"}}}};
  n["nvml"]["gpus"] = gpus;
  return n;
}

const Check* find(const std::vector<Check>& checks, const std::string& metric) {
  const auto it = std::find_if(checks.begin(), checks.end(), [&](const Check& c) { return c.metric == metric; });
  return it == checks.end() ? nullptr : &*it;
}

Status worst(const std::vector<Check>& checks) {
  Status s = Status::healthy;
  for (const Check& c : checks) s = worse(s, c.status);
  return s;
}

TEST(GpuChecks, AHealthyIdleGpuIsHealthyAndItsIdleLinkIsExplained) {
  const auto checks = node_gpu_checks(node_with({healthy_gpu()}), "node1", HealthPlan{}, 0);
  EXPECT_EQ(worst(checks), Status::healthy);
  const Check* gen = find(checks, "gpu.pcie_gen");
  ASSERT_NE(gen, nullptr);
  EXPECT_THAT(gen->why, HasSubstr("idle"));
  // the skipped reading is shown as skipped, not dropped
  EXPECT_NE(find(checks, "gpu.temperature_c"), nullptr);
  const Check* peer = find(checks, "gpu.peer_copy_gbps");
  ASSERT_NE(peer, nullptr);
  EXPECT_EQ(peer->skipped, "1 GPU visible");
}

TEST(GpuChecks, MemoryErrorsFailOrDegradeTheGpu) {
  auto g = healthy_gpu();
  g["ecc_volatile_uncorrected"] = 3;
  auto checks = node_gpu_checks(node_with({g}), "node1", HealthPlan{}, 0);
  EXPECT_EQ(find(checks, "gpu.ecc_volatile_uncorrected")->status, Status::failed);

  g = healthy_gpu();
  g["remapped_rows"]["pending"] = true;
  checks = node_gpu_checks(node_with({g}), "node1", HealthPlan{}, 0);
  EXPECT_EQ(find(checks, "gpu.remapped_rows_pending")->status, Status::degraded);
  EXPECT_THAT(find(checks, "gpu.remapped_rows_pending")->why, HasSubstr("reset"));

  g = healthy_gpu();
  g["remapped_rows"]["failure"] = true;
  checks = node_gpu_checks(node_with({g}), "node1", HealthPlan{}, 0);
  EXPECT_EQ(find(checks, "gpu.remapped_rows_failure")->status, Status::failed);

  g = healthy_gpu();
  g["ecc_enabled"] = false;
  checks = node_gpu_checks(node_with({g}), "node1", HealthPlan{}, 0);
  EXPECT_EQ(find(checks, "gpu.ecc_enabled")->status, Status::degraded);
}

TEST(GpuChecks, ThermalAndPowerBrakeReasonsDegradeIdleDoesNot) {
  auto g = healthy_gpu();
  g["clock_event_reasons"] = 0x40 | 0x80;  // hardware thermal slowdown, power brake
  auto checks = node_gpu_checks(node_with({g}), "node1", HealthPlan{}, 0);
  const Check* c = find(checks, "gpu.clock_event_reasons");
  EXPECT_EQ(c->status, Status::degraded);
  EXPECT_THAT(c->why, HasSubstr("hw_thermal_slowdown"));
  EXPECT_THAT(c->why, HasSubstr("hw_power_brake"));
  g["clock_event_reasons"] = 0x4;  // software power cap: the GPU at its power limit under load, not a fault
  checks = node_gpu_checks(node_with({g}), "node1", HealthPlan{}, 0);
  EXPECT_EQ(find(checks, "gpu.clock_event_reasons")->status, Status::healthy);
  g["temperature_c"] = 90;
  checks = node_gpu_checks(node_with({g}), "node1", HealthPlan{}, 0);
  EXPECT_EQ(find(checks, "gpu.temperature_c")->status, Status::degraded);
}

TEST(GpuChecks, APcieLinkBelowWhatTheGpuIsBuiltForIsNamed) {
  auto g = healthy_gpu();
  g["pcie_max_gen"] = 4;  // the slot: Gen4 at most, where the H200 does Gen5
  g["pcie_gen"] = 4;
  auto checks = node_gpu_checks(node_with({g}), "node1", HealthPlan{}, 0);
  EXPECT_EQ(find(checks, "gpu.pcie_gen")->status, Status::degraded);
  EXPECT_THAT(find(checks, "gpu.pcie_gen")->why, HasSubstr("PCIe Gen5 x16 running at most at Gen4"));

  g = healthy_gpu();
  g["clock_event_reasons"] = 0;  // busy
  g["pcie_gen"] = 3;
  checks = node_gpu_checks(node_with({g}), "node1", HealthPlan{}, 0);
  EXPECT_EQ(find(checks, "gpu.pcie_gen")->status, Status::degraded);
  EXPECT_THAT(find(checks, "gpu.pcie_gen")->why, HasSubstr("Gen3 of Gen5 while the GPU is busy"));

  g = healthy_gpu();
  g["pcie_width"] = 8;
  checks = node_gpu_checks(node_with({g}), "node1", HealthPlan{}, 0);
  EXPECT_EQ(find(checks, "gpu.pcie_width")->status, Status::degraded);
  EXPECT_THAT(find(checks, "gpu.pcie_width")->why, HasSubstr("x8 of x16"));
}

TEST(GpuChecks, NvlinkDownCountsOnlyWhereThereIsAPeer) {
  auto g = healthy_gpu();
  g["nvlink"] = {{{"link", 0}, {"up", true}, {"replay", 0}}, {{"link", 1}, {"up", false}}};
  auto checks = node_gpu_checks(node_with({g}), "node1", HealthPlan{}, 0);
  EXPECT_EQ(find(checks, "gpu.nvlink_down")->status, Status::degraded);
  g["nvlink"] = {{{"link", 0}, {"up", false}}, {{"link", 1}, {"up", false}}};
  checks = node_gpu_checks(node_with({g}), "node1", HealthPlan{}, 0);  // alone on its node: nothing to link to
  EXPECT_EQ(find(checks, "gpu.nvlink_down")->status, Status::healthy);
  checks = node_gpu_checks(node_with({g, healthy_gpu(1)}), "node1", HealthPlan{}, 0);
  EXPECT_EQ(find(checks, "gpu.nvlink_down")->status, Status::degraded);
}

TEST(GpuChecks, ALostGpuFails) {
  const auto checks =
      node_gpu_checks(node_with({healthy_gpu(0), {{"index", 1}, {"lost", "GPU is lost"}}}), "node1", HealthPlan{}, 0);
  EXPECT_EQ(find(checks, "gpu.lost")->status, Status::failed);
  EXPECT_THAT(find(checks, "gpu.lost")->why, HasSubstr("GPU is lost"));
}

TEST(GpuChecks, TheCountIsHeldToTheOptionOrToMostNodes) {
  HealthPlan plan;
  plan.gpus_per_node = 2;
  auto checks = node_gpu_checks(node_with({healthy_gpu()}), "node1", plan, 0);
  EXPECT_EQ(find(checks, "gpu.count")->status, Status::failed);
  EXPECT_THAT(find(checks, "gpu.count")->why, HasSubstr("1 GPUs where 2 are expected"));

  // three nodes, the third with one GPU fewer than the other two
  const Topology topo = make_topology({0, 1, 2}, {"a", "b", "c"});
  PhaseResult phase;
  phase.name = "gpu";
  phase.ranks = {node_with({healthy_gpu(0), healthy_gpu(1)}), node_with({healthy_gpu(0), healthy_gpu(1)}),
                 node_with({healthy_gpu(0)})};
  const auto all = gpu_checks(phase, topo, HealthPlan{});
  for (const Check& c : all) {
    if (c.metric != "gpu.count") continue;
    EXPECT_EQ(c.status, c.host == "c" ? Status::failed : Status::healthy) << c.host;
  }
}

TEST(GpuChecks, WithoutNvmlEveryGpuCheckIsOneSkippedRecordUnlessGpusAreExpected) {
  const nlohmann::json node = {{"nvml_unavailable", "libnvidia-ml.so.1: cannot open shared object file"},
                               {"peer_copies", {{"gpus", nlohmann::json::array()}, {"skipped", "host memory"}}}};
  auto checks = node_gpu_checks(node, "node1", HealthPlan{}, 0);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].metric, "gpu.count");
  EXPECT_THAT(checks[0].skipped, HasSubstr("cannot open shared object file"));
  HealthPlan plan;
  plan.gpus_per_node = 8;
  checks = node_gpu_checks(node, "node1", plan, 0);
  EXPECT_EQ(checks[0].status, Status::failed);
}

TEST(GpuChecks, XidsSinceBootAndDuringTheCheck) {
  auto node = node_with({healthy_gpu()});
  node["kernel_xids"]["xids"] = {{{"bus_id", "0000:1b:00"}, {"xid", 79}, {"count", 1}, {"last_line", "..."}},
                                 {{"bus_id", "0000:1b:00"}, {"xid", 13}, {"count", 4}, {"last_line", "..."}}};
  node["xid_events"]["events"] = {{{"gpu", 0}, {"xid", 48}}};
  const auto checks = node_gpu_checks(node, "node1", HealthPlan{}, 0);
  std::vector<Status> boot;
  for (const Check& c : checks) {
    if (c.metric == "gpu.xid_since_boot") boot.push_back(c.status);
  }
  EXPECT_EQ(boot, (std::vector<Status>{Status::degraded, Status::healthy}));  // 79 serious, 13 a program's
  EXPECT_EQ(find(checks, "gpu.xid_during_check")->status, Status::failed);

  node["kernel_xids"] = {{"readable", false}, {"why", "/dev/kmsg: Permission denied"}};
  const auto unreadable = node_gpu_checks(node, "node1", HealthPlan{}, 0);
  EXPECT_THAT(find(unreadable, "gpu.xid_since_boot")->skipped, HasSubstr("Permission denied"));
}

TEST(GpuChecks, CopiesBetweenGpusWithoutAPeerPathDegrade) {
  auto node = node_with({healthy_gpu(0), healthy_gpu(1)});
  node["peer_copies"] = {
      {"gpus", {"0", "1"}}, {"gbps", {{0, 350.0}, {40.0, 0}}}, {"direct", {{false, true}, {false, false}}}};
  const auto checks = node_gpu_checks(node, "node1", HealthPlan{}, 0);
  std::vector<Status> pairs;
  for (const Check& c : checks) {
    if (c.metric == "gpu.peer_copy_gbps") pairs.push_back(c.status);
  }
  EXPECT_EQ(pairs, (std::vector<Status>{Status::healthy, Status::degraded}));
}

PhaseResult rank_phase(std::vector<std::optional<nlohmann::json>> ranks) {
  PhaseResult p;
  p.name = "rank";
  p.ranks = std::move(ranks);
  return p;
}

TEST(SpecChecks, FiguresAreHeldToTheDatasheet) {
  const Topology topo = make_topology({0, 0}, {"a", "a"});
  const auto checks = spec_checks(rank_phase({nlohmann::json{{"model", "NVIDIA H200"},
                                                             {"copy_gbps", 1800.0},
                                                             {"h2d_gbps", 55.0},
                                                             {"d2h_gbps", 20.0},
                                                             {"gemm_tflops", 50.0}},
                                              nlohmann::json{{"model", "NVIDIA H200"},
                                                             {"copy_gbps", 900.0},
                                                             {"h2d_gbps", 55.0},
                                                             {"d2h_gbps", 55.0},
                                                             {"gemm_skipped", "cuBLAS 13 was not found"}}}),
                                  topo, HealthPlan{});
  auto of = [&](const std::string& subject, const std::string& metric) -> const Check* {
    for (const Check& c : checks) {
      if (c.subject == subject && c.metric == metric) return &c;
    }
    return nullptr;
  };
  const Check* mem0 = of("rank 0 (NVIDIA H200)", "hardware.memory_fraction");
  ASSERT_NE(mem0, nullptr);
  EXPECT_NEAR(mem0->value, 0.75, 1e-9);  // 2 x 1800 of 4800 GB/s
  EXPECT_EQ(mem0->status, Status::healthy);
  EXPECT_THAT(mem0->why, HasSubstr("75 % of the H200 SXM's memory bandwidth (4800 GB/s)"));
  EXPECT_EQ(of("rank 1 (NVIDIA H200)", "hardware.memory_fraction")->status, Status::degraded);
  EXPECT_EQ(of("rank 0 (NVIDIA H200)", "hardware.h2d_fraction")->status, Status::healthy);
  EXPECT_EQ(of("rank 0 (NVIDIA H200)", "hardware.d2h_fraction")->status, Status::degraded);
  EXPECT_THAT(of("rank 0 (NVIDIA H200)", "hardware.d2h_fraction")->why, HasSubstr("PCIe Gen5 x16"));
  EXPECT_NEAR(of("rank 0 (NVIDIA H200)", "hardware.gemm_fraction")->value, 50.0 / 67, 1e-9);
  EXPECT_THAT(of("rank 1 (NVIDIA H200)", "hardware.gemm_fraction")->skipped, HasSubstr("cuBLAS"));
}

TEST(SpecChecks, UnknownGpusAndHostMemoryAreSkippedWithTheirReason) {
  const Topology topo = make_topology({0, 0, 1}, {"a", "a", "b"});
  const auto checks = spec_checks(rank_phase({nlohmann::json{{"copy_gbps", 10.0}}, nlohmann::json{{"copy_gbps", 10.0}},
                                              nlohmann::json{{"model", "NVIDIA H20"}, {"copy_gbps", 1000.0}}}),
                                  topo, HealthPlan{});
  ASSERT_EQ(checks.size(), 2u);  // one for node a's host-memory ranks, one for the GPU the table does not know
  EXPECT_THAT(checks[0].skipped, HasSubstr("host memory"));
  EXPECT_THAT(checks[1].skipped, HasSubstr("no datasheet figures for 'NVIDIA H20'"));
}

TEST(SpecChecks, TheLoadedStateCountsWhereTheIdleOneCannot) {
  const Topology topo = make_topology({0}, {"a"});
  auto loaded = nlohmann::json{{"clock_event_reasons", 0x4},  // power cap under load: not a fault
                               {"pcie_gen", 5},
                               {"pcie_max_gen", 5},
                               {"pcie_width", 16},
                               {"pcie_max_width", 16},
                               {"sm_clock_mhz", 1980}};
  auto run = [&](const nlohmann::json& l) {
    return spec_checks(rank_phase({nlohmann::json{{"model", "NVIDIA H200"}, {"loaded", l}}}), topo, HealthPlan{});
  };
  for (const Check& c : run(loaded)) EXPECT_EQ(c.status, Status::healthy) << c.metric;
  loaded["pcie_gen"] = 4;
  loaded["clock_event_reasons"] = 0x20;  // software thermal slowdown
  const auto bad = run(loaded);
  EXPECT_EQ(find(bad, "gpu.loaded_pcie_gen")->status, Status::degraded);
  EXPECT_THAT(find(bad, "gpu.loaded_pcie_gen")->why, HasSubstr("4 of 5"));
  EXPECT_EQ(find(bad, "gpu.loaded_clock_event_reasons")->status, Status::degraded);
  EXPECT_THAT(find(run({{"unavailable", "no GPU at PCI bus x"}}), "gpu.loaded_clock_event_reasons")->skipped,
              HasSubstr("no GPU at PCI bus"));
}

// What NVML read of the lent H200 (GPU run 9, `distbench info --json`, serial and UUID taken out): every reading the
// checks use, judged as they were there.
TEST(GpuChecks, TheReadingsOfARealH200AreJudgedHealthy) {
  const char* root = std::getenv("DISTBENCH_SOURCE_ROOT");
  ASSERT_NE(root, nullptr) << "run through meson test (DISTBENCH_SOURCE_ROOT names the sources)";
  std::ifstream in(std::string(root) + "/tests/data/gpu/h200_nvml.json");
  ASSERT_TRUE(in) << "tests/data/gpu/h200_nvml.json";
  nlohmann::json node = node_with({});
  node["nvml"] = nlohmann::json::parse(in);
  HealthPlan plan;
  plan.gpus_per_node = 1;
  const auto checks = node_gpu_checks(node, "vm", plan, 0);
  EXPECT_EQ(worst(checks), Status::healthy);
  for (const char* metric :
       {"gpu.count", "gpu.ecc_enabled", "gpu.ecc_volatile_uncorrected", "gpu.remapped_rows_pending",
        "gpu.clock_event_reasons", "gpu.temperature_c", "gpu.power_w", "gpu.pcie_gen", "gpu.pcie_width"}) {
    const Check* c = find(checks, metric);
    ASSERT_NE(c, nullptr) << metric;
    EXPECT_TRUE(c->skipped.empty()) << metric << ": " << c->skipped;
  }
  EXPECT_EQ(find(checks, "gpu.pcie_gen")->value, 5);
  EXPECT_EQ(find(checks, "gpu.temperature_c")->limit, "< 89 C (its slowdown threshold)");
  // this VM's H200 answers Not Supported for NVLink: shown as skipped with NVML's reason
  EXPECT_EQ(find(checks, "gpu.nvlink_down")->skipped, "NVML cannot read nvlink: Not Supported");
  // and the same readings with the slot limited to Gen4 are caught
  node["nvml"]["gpus"][0]["pcie_max_gen"] = 4;
  EXPECT_EQ(find(node_gpu_checks(node, "vm", plan, 0), "gpu.pcie_gen")->status, Status::degraded);
}

TEST(GpuFacts, ANodesGpusGiveTheFactsDriftComparesAcrossNodes) {
  const char* root = std::getenv("DISTBENCH_SOURCE_ROOT");
  ASSERT_NE(root, nullptr);
  std::ifstream in(std::string(root) + "/tests/data/gpu/h200_nvml.json");
  nlohmann::json state = nlohmann::json::parse(in);
  EXPECT_EQ(gpu_facts(state),
            (KeyValues{{"gpu.model", "NVIDIA H200"}, {"gpu.vbios", "96.00.A5.00.1A"}, {"gpu.persistence_mode", "on"}}));
  // a second GPU with another VBIOS and persistence off: both VBIOS named once each, persistence mixed
  auto other = state["gpus"][0];
  other["vbios"] = "96.00.99.00.01";
  other["persistence_mode"] = false;
  state["gpus"].push_back(other);
  state["gpus"].push_back(state["gpus"][0]);
  EXPECT_EQ(gpu_facts(state), (KeyValues{{"gpu.model", "NVIDIA H200"},
                                         {"gpu.vbios", "96.00.A5.00.1A, 96.00.99.00.01"},
                                         {"gpu.persistence_mode", "mixed"}}));
  EXPECT_TRUE(gpu_facts(nlohmann::json::object()).empty());  // no GPU: no fact, as on every CPU node
}

TEST(SpecChecks, ProcessesSharingAGpuMeasureTheirShareAndAreNotHeldToTheDatasheet) {
  const Topology topo = make_topology({0, 0}, {"a", "a"});
  const nlohmann::json half = {{"model", "NVIDIA H200"}, {"copy_gbps", 900.0}, {"processes_per_gpu", 2}};
  const auto checks = spec_checks(rank_phase({half, half}), topo, HealthPlan{});
  for (const Check& c : checks) {
    EXPECT_EQ(c.status, Status::healthy) << c.metric;
    EXPECT_THAT(c.why, HasSubstr("2 processes share this GPU"));
  }
}

}  // namespace
}  // namespace distbench::health
