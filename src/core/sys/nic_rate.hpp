// The link rate of a node's network interfaces as the kernel reports it in sysfs, and the one that applies to the
// job's traffic between nodes: what `model` and `health` hold bandwidths to ("% of the link") without --link-gbps.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench {

// At most this many network interfaces, and as many RDMA ports, are read on a node (a host with thousands of veths
// reads the first ones by name).
inline constexpr std::size_t kMostNicPorts = 256;

// One network interface (/sys/class/net/IF) or one RDMA port (/sys/class/infiniband/DEV/ports/N), as read.
struct NicPort {
  std::string name;            // "eth0"; an RDMA port "mlx5_0 port 1"
  std::string kind;            // "ethernet" (any net interface), "loopback" or "infiniband" (an RDMA port)
  std::string state;           // operstate ("up", "down", "unknown", ...); a port's state ("ACTIVE", "DOWN")
  bool carries = false;        // up (a port: ACTIVE), not loopback, not enslaved to a bond or bridge
  bool physical = false;       // a net interface with a device behind it (sysfs' device link); every RDMA port
  std::optional<double> mbps;  // the link rate in Mb/s (megabits); nullopt: unknown (see `problem`)
  std::string source;          // the file the rate is read from, under the root: "sys/class/net/eth0/speed"
  std::string net;             // an RDMA port's net interfaces where sysfs says (device/net), "ib0"; else empty
  std::string problem;         // why the rate is unknown, or why the port carries no traffic
};

// Every interface and port under `root` (normally "/"), interfaces first, each group in order of name; at most
// kMostNicPorts of each, every file read bounded. Missing directories give nothing; unreadable or malformed files
// give a port with its problem said. Never throws for what the files hold.
std::vector<NicPort> read_nic_ports(const std::string& root);

// An RDMA port's rate file, "400 Gb/sec (4X NDR)" or "2.5 Gb/sec (1X SDR)", in Mb/s; nullopt when malformed.
std::optional<double> ib_rate_mbps(std::string_view text);
// A net interface's speed file (Mb/s, "10000"); nullopt for "-1", 0, the kernel's other unknown markers
// (65535, 4294967295) and anything that is not a whole number.
std::optional<double> net_speed_mbps(std::string_view text);

// The rate that applies to a node's traffic with other nodes.
struct NicRate {
  std::string interface;       // "eth0", "mlx5_0 port 1 (ib0)"; empty: no interface qualified
  std::optional<double> mbps;  // Mb/s; nullopt: unknown
  std::string source;          // the file read, "/sys/class/net/eth0/speed"; empty when unknown
  std::string note;            // how it was chosen ("fastest active RDMA port of 2"), or why it is unknown
};

// The rule, in order: (1) the fastest ACTIVE RDMA port (InfiniBand or RoCE: MPI over UCX and NCCL use it when the
// node has one); (2) else the fastest up physical interface with a known speed; (3) else the fastest up virtual
// one (a container's veth, a bond). Loopback, down and enslaved interfaces never count. Ties go to the first name.
// Unknown, with the reason, when none has a rate.
NicRate choose_nic_rate(const std::vector<NicPort>& ports);

// read_nic_ports then choose_nic_rate; `source` carries the root's path ("/sys/class/net/eth0/speed").
NicRate read_nic_rate(const std::string& root);

// Mb/s as GB/s (gigabytes per second, how distbench writes bandwidths): 10000 Mb/s is 1.25 GB/s.
inline double mbps_to_gbps(double mbps) { return mbps / 8000.0; }

// In words: "eth0 10 Gb/s (/sys/class/net/eth0/speed)", or "unknown: WHY".
std::string nic_rate_words(const NicRate& rate);

}  // namespace distbench
