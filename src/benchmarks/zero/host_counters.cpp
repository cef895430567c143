#include "benchmarks/zero/host_counters.hpp"

#include <malloc.h>

#include <fstream>
#include <sstream>
#include <string>

namespace distbench::zero {
namespace {

// A "Name:   123 kB" line of /proc/self/status, in bytes.
std::optional<std::uint64_t> status_kib(const std::string& name) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(name.size() + 1));
    std::uint64_t kib = 0;
    if (fields >> kib) return kib * 1024;
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> resident_bytes() { return status_kib("VmRSS"); }

std::optional<std::uint64_t> peak_resident_bytes() { return status_kib("VmHWM"); }

bool reset_peak_resident() {
  malloc_trim(0);  // freed heap memory back to the system, so that what is allocated next grows the resident size
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

std::optional<NetworkBytes> network_bytes() {
  // Two header lines, then "  name: rx_bytes packets errs drop fifo frame compressed multicast tx_bytes ...".
  std::ifstream in("/proc/net/dev");
  if (!in) return std::nullopt;
  std::string line;
  NetworkBytes total;
  bool any = false;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(0, name.find_first_not_of(' '));
    if (name == "lo") continue;
    std::istringstream fields(line.substr(colon + 1));
    std::uint64_t v[9] = {};
    for (auto& x : v) {
      if (!(fields >> x)) return std::nullopt;
    }
    total.received += v[0];
    total.sent += v[8];
    any = true;
  }
  if (!any) return NetworkBytes{};
  return total;
}

}  // namespace distbench::zero
