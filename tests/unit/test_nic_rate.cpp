// A node's NIC rates read from a fake sysfs tree: Ethernet speeds, unknown speeds (-1, absent, unreadable), down and
// loopback interfaces, InfiniBand ports' rate and state, malformed files, and the rule choosing the one that applies.
#include "core/sys/nic_rate.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace distbench {
namespace {

namespace fs = std::filesystem;

// A folder laid out as /sys/class/net and /sys/class/infiniband, removed afterwards.
class NicRateTree : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) / ("distbench_nic_rate_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sys/class/net");
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  // An interface: its operstate, its speed file's text (nullptr: no file), a device link when physical.
  void net(const std::string& name, const std::string& state, const char* speed, bool physical = true) const {
    const fs::path d = dir_ / "sys/class/net" / name;
    write(d / "operstate", state + "\n");
    write(d / "type", name == "lo" ? "772\n" : "1\n");
    if (speed != nullptr) write(d / "speed", speed);
    if (physical) fs::create_directories(d / "device");
  }
  void port(const std::string& dev, int n, const std::string& state, const std::string& rate) const {
    const fs::path d = dir_ / "sys/class/infiniband" / dev / "ports" / std::to_string(n);
    write(d / "state", state + "\n");
    write(d / "rate", rate + "\n");
  }
  const NicPort& find(const std::vector<NicPort>& ports, const std::string& name) const {
    for (const NicPort& p : ports) {
      if (p.name == name) return p;
    }
    ADD_FAILURE() << "no port " << name;
    return ports.front();
  }
  std::string root() const { return dir_.string(); }

  fs::path dir_;
};

TEST(NicRateParse, EthernetSpeedInMegabits) {
  EXPECT_EQ(net_speed_mbps("10000\n"), 10000.0);
  EXPECT_EQ(net_speed_mbps(" 100 "), 100.0);
  // The kernel's markers for "unknown": -1 (SPEED_UNKNOWN), 0, and the unsigned forms older drivers print.
  for (const char* unknown : {"-1", "0", "65535", "4294967295", "", "fast", "10000Mb", "1e4"}) {
    EXPECT_FALSE(net_speed_mbps(unknown).has_value()) << unknown;
  }
}

TEST(NicRateParse, InfinibandRateInMegabits) {
  EXPECT_EQ(ib_rate_mbps("400 Gb/sec (4X NDR)"), 400000.0);
  EXPECT_EQ(ib_rate_mbps("2.5 Gb/sec (1X SDR)\n"), 2500.0);
  EXPECT_EQ(ib_rate_mbps("56 Gb/sec (4X FDR)"), 56000.0);
  for (const char* bad :
       {"", "400", "400 Mb/sec (4X)", "fast Gb/sec", "-5 Gb/sec (x)", "0 Gb/sec (x)", "4 00 Gb/sec"}) {
    EXPECT_FALSE(ib_rate_mbps(bad).has_value()) << bad;
  }
}

TEST_F(NicRateTree, EthernetUpWithASpeedIsTheRate) {
  net("lo", "unknown", "-1", false);
  net("eth0", "up", "10000\n");
  const auto ports = read_nic_ports(root());
  ASSERT_EQ(ports.size(), 2U);
  EXPECT_EQ(find(ports, "lo").kind, "loopback");
  EXPECT_FALSE(find(ports, "lo").carries);
  EXPECT_TRUE(find(ports, "eth0").carries);
  const NicRate r = read_nic_rate(root());
  EXPECT_EQ(r.interface, "eth0");
  EXPECT_EQ(r.mbps, 10000.0);
  EXPECT_EQ(r.source, (dir_ / "sys/class/net/eth0/speed").string());
  EXPECT_EQ(r.note, "the only up physical interface with a rate");
  EXPECT_DOUBLE_EQ(mbps_to_gbps(*r.mbps), 1.25);  // 10 Gb/s is 1.25 GB/s
  EXPECT_EQ(nic_rate_words(r), "eth0 10 Gb/s (" + r.source + ")");
}

TEST_F(NicRateTree, UnknownSpeedDownAndLoopbackGiveNoRateWithTheReason) {
  net("lo", "unknown", "-1", false);
  net("eth0", "up", "-1\n");
  net("eth1", "down", "25000\n");  // a down link: its figure is no rate (the kernel usually refuses the read)
  net("eth2", "up", nullptr);      // no speed file
  const NicRate r = read_nic_rate(root());
  EXPECT_FALSE(r.mbps.has_value());
  EXPECT_TRUE(r.interface.empty());
  EXPECT_NE(r.note.find("eth0: speed unknown ('-1')"), std::string::npos) << r.note;
  EXPECT_NE(r.note.find("eth1: link down"), std::string::npos) << r.note;
  EXPECT_NE(r.note.find("eth2: speed unreadable (absent)"), std::string::npos) << r.note;
  EXPECT_EQ(r.note.find("lo"), std::string::npos) << r.note;
  EXPECT_EQ(nic_rate_words(r).rfind("unknown: ", 0), 0U);
}

TEST_F(NicRateTree, PhysicalBeatsVirtualAndFastestWins) {
  net("veth1", "up", "10000", false);
  net("eno1", "up", "1000");
  net("eno2", "up", "25000");
  net("bond0", "up", "50000", false);
  net("eno3", "up", "100000");
  fs::create_directories(dir_ / "sys/class/net/eno3/master");  // enslaved: its bond carries the traffic
  const NicRate r = choose_nic_rate(read_nic_ports(root()));
  EXPECT_EQ(r.interface, "eno2");
  EXPECT_EQ(r.mbps, 25000.0);
  EXPECT_EQ(r.note, "the fastest of 2 up physical interfaces with a rate");
}

TEST_F(NicRateTree, AContainersVirtualInterfaceCountsWhenNothingPhysical) {
  net("lo", "unknown", "-1", false);
  net("eth0", "up", "10000", false);  // a veth: "up" or "unknown" while it carries traffic
  net("eth1", "unknown", "1000", false);
  const NicRate r = read_nic_rate(root());
  EXPECT_EQ(r.interface, "eth0");
  EXPECT_EQ(r.note, "the fastest of 2 up virtual interfaces with a rate");
}

TEST_F(NicRateTree, ActiveInfinibandPortWinsWithItsNetInterface) {
  net("eno1", "up", "100000");
  port("mlx5_0", 1, "4: ACTIVE", "400 Gb/sec (4X NDR)");
  port("mlx5_1", 1, "1: DOWN", "800 Gb/sec (4X XDR)");
  port("mlx5_2", 1, "4: ACTIVE", "200 Gb/sec (4X HDR)");
  fs::create_directories(dir_ / "sys/class/infiniband/mlx5_0/device/net/ib0");
  const auto ports = read_nic_ports(root());
  const NicPort& down = find(ports, "mlx5_1 port 1");
  EXPECT_EQ(down.state, "DOWN");
  EXPECT_FALSE(down.carries);
  EXPECT_EQ(down.mbps, 800000.0);
  const NicPort& hdr = find(ports, "mlx5_2 port 1");
  EXPECT_EQ(hdr.state, "ACTIVE");
  EXPECT_TRUE(hdr.net.empty());
  const NicRate r = choose_nic_rate(ports);
  EXPECT_EQ(r.interface, "mlx5_0 port 1 (ib0)");
  EXPECT_EQ(r.mbps, 400000.0);
  EXPECT_EQ(r.source, "sys/class/infiniband/mlx5_0/ports/1/rate");
  EXPECT_EQ(r.note, "the fastest of 2 active RDMA ports with a rate");
}

TEST_F(NicRateTree, MalformedAndMissingFilesAreProblemsNotErrors) {
  net("eth0", "up", "ten gigabits");
  port("mlx5_0", 1, "4: ACTIVE", "fast");
  write(dir_ / "sys/class/infiniband/mlx5_1/ports/1/state", "4: ACTIVE\n");  // no rate file
  fs::create_directories(dir_ / "sys/class/net/eth1");                       // nothing inside
  std::string huge(1 << 16, '7');
  net("eth2", "up", huge.c_str());  // read bounded: the first bytes, not a number of 65536 digits
  const auto ports = read_nic_ports(root());
  EXPECT_EQ(find(ports, "mlx5_0 port 1").problem, "rate not understood ('fast')");
  EXPECT_EQ(find(ports, "mlx5_1 port 1").problem, "rate unreadable (absent)");
  EXPECT_FALSE(find(ports, "eth1").carries);  // no operstate: not known to be up
  EXPECT_EQ(find(ports, "eth1").state, "absent");
  EXPECT_FALSE(find(ports, "eth2").mbps.has_value());
  EXPECT_FALSE(choose_nic_rate(ports).mbps.has_value());
}

TEST_F(NicRateTree, NoTreeAtAllIsUnknownNotAnError) {
  fs::remove_all(dir_ / "sys");
  const NicRate r = read_nic_rate(root());
  EXPECT_FALSE(r.mbps.has_value());
  EXPECT_EQ(r.note, "no network interface but loopback in sysfs");
}

TEST_F(NicRateTree, AtMostSoManyInterfacesAreRead) {
  for (std::size_t i = 0; i < kMostNicPorts + 10; ++i) {
    fs::create_directories(dir_ / "sys/class/net" / ("v" + std::to_string(1000 + i)));
  }
  EXPECT_EQ(read_nic_ports(root()).size(), kMostNicPorts);
}

}  // namespace
}  // namespace distbench
