// A node's facts for health's drift phase (core/sys/node_facts): read from a fake /proc, /sys and /etc tree and a
// given environment, the launcher's bookkeeping left out, bounded, and later facts merged before the environment.
#include "core/sys/node_facts.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace distbench {
namespace {

namespace fs = std::filesystem;

std::string value_of(const KeyValues& kv, const std::string& key) {
  for (const auto& [k, v] : kv) {
    if (k == key) return v;
  }
  return "(absent)";
}

class NodeFacts : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(testing::TempDir()) / ("distbench_node_facts_" + std::to_string(::getpid()) + "_" +
                                            testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& path, const std::string& text) {
    const fs::path full = root_ / path;
    fs::create_directories(full.parent_path());
    std::ofstream(full) << text;
  }
  NodeFactSources sources() const {
    NodeFactSources s;
    s.root = root_.string();
    return s;
  }
  fs::path root_;
};

TEST_F(NodeFacts, ReadsTheTree) {
  write("proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
  write("etc/os-release", "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n");
  write("sys/module/nvidia/version", "550.54.15\n");
  write("sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
  write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
  NodeFactSources s = sources();
  s.memlock_bytes = 64 * 1024;
  s.open_files = 1048576;
  s.versions = {{"distbench", "0.1.0 (abc)"}, {"mpi.library", "Open MPI v4.1.4"}};
  const KeyValues facts = node_facts(s);
  ASSERT_GE(facts.size(), 2U);
  EXPECT_EQ(facts[0].first, "distbench");  // the versions first, in their order
  EXPECT_EQ(facts[1].first, "mpi.library");
  EXPECT_EQ(value_of(facts, "kernel"), "6.1.0-18-amd64");
  EXPECT_EQ(value_of(facts, "os"), "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(value_of(facts, "nvidia.driver"), "550.54.15");
  EXPECT_EQ(value_of(facts, "limit.memlock"), "64 KiB");
  EXPECT_EQ(value_of(facts, "limit.nofile"), "1048576");
  EXPECT_EQ(value_of(facts, "thp"), "madvise");
  EXPECT_EQ(value_of(facts, "cpu.governor"), "performance");
}

TEST_F(NodeFacts, WhatIsAbsentSaysSo) {
  write("proc/driver/nvidia/version",
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n");
  const KeyValues facts = node_facts(sources());
  EXPECT_EQ(value_of(facts, "nvidia.driver"), "535.104.05");  // from /proc when /sys has no module version
  EXPECT_EQ(value_of(facts, "kernel"), "unknown");
  EXPECT_EQ(value_of(facts, "os"), "unknown");
  EXPECT_EQ(value_of(facts, "limit.memlock"), "unlimited");
  EXPECT_EQ(value_of(facts, "limit.nofile"), "unlimited");
  EXPECT_EQ(value_of(facts, "thp"), "none");
  EXPECT_EQ(value_of(facts, "cpu.governor"), "none");
  fs::remove_all(root_);
  EXPECT_EQ(value_of(node_facts(sources()), "nvidia.driver"), "none");
}

TEST_F(NodeFacts, ComparesTheConfigurationNotTheLaunchersBookkeeping) {
  NodeFactSources s = sources();
  s.environment = {{"UCX_TLS", "rc"},
                   {"NCCL_IB_HCA", "mlx5_0"},
                   {"OMPI_MCA_btl", "tcp,self"},
                   {"HOME", "/root"},
                   {"OMPI_COMM_WORLD_RANK", "3"},
                   {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                   {"OMPI_FILE_LOCATION", "/tmp/ompi.x/pid.1/0/3"},
                   {"OMPI_MCA_orte_local_daemon_uri", "1.0;tcp://10.0.0.2:4000"},
                   {"OMPI_MCA_ess_base_vpid", "3"},
                   {"OMPI_MCA_plm", "rsh"},
                   {"OMPI_MCA_plm_rsh_agent", "ssh"},
                   {"PMIX_RANK", "3"}};
  const KeyValues facts = node_facts(s);
  KeyValues env;
  for (const auto& kv : facts) {
    if (kv.first.starts_with("env.")) env.push_back(kv);
  }
  const KeyValues expected = {{"env.NCCL_IB_HCA", "mlx5_0"}, {"env.OMPI_MCA_btl", "tcp,self"}, {"env.UCX_TLS", "rc"}};
  EXPECT_EQ(env, expected);  // sorted by name, the environment last
  EXPECT_EQ(facts.back().first, "env.UCX_TLS");
}

TEST_F(NodeFacts, BoundedAndCounted) {
  NodeFactSources s = sources();
  for (int i = 0; i < 100; ++i) s.environment.emplace_back("NCCL_VAR_" + std::to_string(100 + i), "v");
  s.environment.emplace_back("NCCL_" + std::string(80, 'X'), "long name");
  s.environment.emplace_back("NCCL_A_LONG_VALUE", std::string(500, 'y') + "\xff");
  const KeyValues facts = node_facts(s);
  EXPECT_EQ(facts.size(), kMaxNodeFacts);
  for (const auto& [k, v] : facts) {
    EXPECT_LE(k.size(), kMaxFactKeyChars);
    EXPECT_LE(v.size(), kMaxFactValueChars + 3) << k;  // a cut UTF-8 sequence's U+FFFD
  }
  EXPECT_EQ(value_of(facts, "env.NCCL_A_LONG_VALUE"), std::string(kMaxFactValueChars, 'y'));
  EXPECT_EQ(facts.back().first, "facts.not_compared");
  // 7 machine facts + 102 variables = 109; 63 kept, the 64th the count of the 46 left out
  EXPECT_EQ(facts.back().second.substr(0, 3), "46 ");
}

TEST_F(NodeFacts, MergedFactsGoBeforeTheEnvironment) {
  NodeFactSources s = sources();
  s.environment = {{"NCCL_DEBUG", "INFO"}};
  KeyValues facts = node_facts(s);
  merge_facts(facts, {{"gpu.0.vbios", "96.00.5E.00.01"}, {"thp", "always"}});
  EXPECT_EQ(value_of(facts, "thp"), "always");  // a key already there takes the new value
  ASSERT_GE(facts.size(), 2U);
  EXPECT_EQ(facts[facts.size() - 2].first, "gpu.0.vbios");
  EXPECT_EQ(facts.back().first, "env.NCCL_DEBUG");
  // Past the cap the environment goes first; the count of what was left out is counted once.
  for (int i = 0; i < 70; ++i) merge_facts(facts, {{"gpu.fact" + std::to_string(i), "x"}});
  EXPECT_EQ(facts.size(), kMaxNodeFacts);
  EXPECT_EQ(value_of(facts, "env.NCCL_DEBUG"), "(absent)");
  EXPECT_EQ(value_of(facts, "gpu.fact0"), "x");
  EXPECT_EQ(facts.back().first, "facts.not_compared");
}

TEST(LimitText, UnitsAndUnlimited) {
  EXPECT_EQ(limit_text(kNoLimit, true), "unlimited");
  EXPECT_EQ(limit_text(kNoLimit, false), "unlimited");
  EXPECT_EQ(limit_text(65536, true), "64 KiB");
  EXPECT_EQ(limit_text(8ULL << 20, true), "8 MiB");
  EXPECT_EQ(limit_text(1000, true), "1000 bytes");
  EXPECT_EQ(limit_text(0, true), "0 bytes");
  EXPECT_EQ(limit_text(1024, false), "1024");
}

}  // namespace
}  // namespace distbench
