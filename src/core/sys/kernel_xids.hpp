// XID errors the NVIDIA driver logged in the kernel's ring buffer since boot ("NVRM: Xid (PCI:0000:3b:00): 79, pid=...,
// GPU has fallen off the bus."): NVML reports XIDs only as events from the moment one listens, so the kernel log is
// where the ones before the check are. Read from /dev/kmsg (root, or CAP_SYSLOG where dmesg is restricted), bounded.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace distbench {

struct KernelXid {
  std::string bus_id;  // as the driver wrote it ("0000:3b:00")
  int xid = 0;
  std::size_t count = 0;
  std::string last_line;  // the last such message, cut to 200 characters
};

struct KernelXids {
  bool readable = false;
  std::string why;              // when not readable: the system's reason
  std::size_t records = 0;      // kernel log records read
  std::vector<KernelXid> xids;  // by bus id, then XID
};

// Counts the XID lines among kernel log lines, keeping at most `max_kinds` different (bus, XID) pairs.
class XidTally {
 public:
  explicit XidTally(std::size_t max_kinds = 64) : max_kinds_(max_kinds) {}
  void add(std::string_view line);
  std::vector<KernelXid> result() const;  // by bus id, then XID

 private:
  std::size_t max_kinds_;
  std::map<std::pair<std::string, int>, KernelXid> seen_;
};

// The XIDs in kernel log lines (one line per record, "prefix;message" as /dev/kmsg gives them, or dmesg's text).
// At most `max_kinds` different (bus, XID) pairs are kept.
std::vector<KernelXid> parse_kernel_xids(const std::vector<std::string>& lines, std::size_t max_kinds = 64);

// Reads the kernel log at `path` (/dev/kmsg) without blocking: at most `max_records` records and `max_seconds`.
KernelXids read_kernel_xids(const std::string& path = "/dev/kmsg", std::size_t max_records = 1000000,
                            double max_seconds = 2.0);

}  // namespace distbench
