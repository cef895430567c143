#include "core/sys/nic_rate.hpp"

#include "core/sys/split.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace distbench {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kNicFileMaxBytes = 256;  // a sysfs attribute is one short line

// A sysfs attribute's first line, trimmed; nullopt with `problem` ("absent", the system's reason) when unreadable.
std::optional<std::string> nic_attribute(const fs::path& path, std::string& problem) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    problem = errno == ENOENT ? std::string("absent") : std::string(std::strerror(errno));
    return std::nullopt;
  }
  std::array<char, kNicFileMaxBytes> buf{};
  const ssize_t n = ::read(fd, buf.data(), buf.size());
  const int err = errno;
  ::close(fd);
  if (n < 0) {
    problem = std::strerror(err);  // a down link's speed: "Invalid argument"
    return std::nullopt;
  }
  std::string_view text(buf.data(), static_cast<std::size_t>(n));
  text = text.substr(0, text.find('\n'));
  return std::string(trim_spaces(text));
}

// The names in a directory, sorted, at most `most`; empty when it is absent or unreadable.
std::vector<std::string> nic_dir_names(const fs::path& dir, std::size_t most) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  // Read a bounded number of entries (sorted after), so that a directory of a million entries stays cheap.
  for (std::size_t seen = 0; !ec && it != fs::directory_iterator() && seen < 16 * most; it.increment(ec), ++seen) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  if (names.size() > most) names.resize(most);
  return names;
}

bool nic_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec)) && !ec;
}

NicPort nic_read_interface(const fs::path& root, const std::string& name) {
  const fs::path dir = root / "sys/class/net" / name;
  NicPort p;
  p.name = name;
  p.source = fmt::format("sys/class/net/{}/speed", name);
  p.physical = nic_exists(dir / "device");
  std::string problem;
  const auto type = nic_attribute(dir / "type", problem);
  const bool loopback = name == "lo" || (type && *type == "772");  // ARPHRD_LOOPBACK
  p.kind = loopback ? "loopback" : "ethernet";
  p.state = nic_attribute(dir / "operstate", problem).value_or("absent");
  const auto speed = nic_attribute(dir / "speed", problem);
  if (speed) {
    p.mbps = net_speed_mbps(*speed);
    if (!p.mbps) p.problem = fmt::format("speed unknown ('{}')", speed->substr(0, 32));
  } else {
    p.problem = fmt::format("speed unreadable ({})", problem);
  }
  const bool enslaved = nic_exists(dir / "master");
  // "unknown" is what many virtual devices (a container's veth among them) say while they carry traffic.
  const bool up = p.state == "up" || p.state == "unknown";
  p.carries = !loopback && up && !enslaved;
  if (loopback) {
    p.problem = "loopback";
  } else if (!up) {
    p.problem = fmt::format("link {}", p.state);
  } else if (enslaved) {
    p.problem = "enslaved to a bond or bridge (its master carries the traffic)";
  }
  return p;
}

NicPort nic_read_rdma_port(const fs::path& root, const std::string& device, const std::string& port,
                           const std::string& nets) {
  const fs::path dir = root / "sys/class/infiniband" / device / "ports" / port;
  NicPort p;
  p.name = fmt::format("{} port {}", device, port);
  p.kind = "infiniband";
  p.physical = true;
  p.net = nets;
  p.source = fmt::format("sys/class/infiniband/{}/ports/{}/rate", device, port);
  std::string problem;
  const auto state = nic_attribute(dir / "state", problem);
  if (state) {
    // "4: ACTIVE": the name after the number.
    const auto colon = state->find(':');
    p.state = std::string(trim_spaces(colon == std::string::npos ? *state : state->substr(colon + 1)));
  } else {
    p.state = "unknown";
  }
  const auto rate = nic_attribute(dir / "rate", problem);
  if (rate) {
    p.mbps = ib_rate_mbps(*rate);
    if (!p.mbps) p.problem = fmt::format("rate not understood ('{}')", rate->substr(0, 32));
  } else {
    p.problem = fmt::format("rate unreadable ({})", problem);
  }
  p.carries = p.state == "ACTIVE";
  if (!p.carries) p.problem = fmt::format("port {}", p.state.empty() ? std::string("state unknown") : p.state);
  return p;
}

// The net interfaces an RDMA device maps to (device/net/*), "ib0" or "ib0,ib1"; empty where sysfs does not say.
std::string nic_rdma_nets(const fs::path& root, const std::string& device) {
  std::string out;
  for (const std::string& n : nic_dir_names(root / "sys/class/infiniband" / device / "device/net", 8)) {
    out += (out.empty() ? "" : ",") + n;
  }
  return out;
}

// `text` without white space (a newline too) at either end.
std::string_view nic_trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::optional<double> nic_whole_number(std::string_view text) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return static_cast<double>(v);
}

// The fastest carrying port with a rate among those `pick` accepts, the first by name on a tie; nullptr if none.
template <typename Pick>
const NicPort* nic_fastest(const std::vector<NicPort>& ports, Pick pick, std::size_t& candidates) {
  const NicPort* best = nullptr;
  candidates = 0;
  for (const NicPort& p : ports) {
    if (!p.carries || !p.mbps || !pick(p)) continue;
    ++candidates;
    if (best == nullptr || *p.mbps > *best->mbps) best = &p;
  }
  return best;
}

std::string nic_mbps_words(double mbps) {
  return mbps >= 1000 ? fmt::format("{:g} Gb/s", mbps / 1000) : fmt::format("{:g} Mb/s", mbps);
}

}  // namespace

std::optional<double> net_speed_mbps(std::string_view text) {
  const auto v = nic_whole_number(nic_trim(text));
  if (!v || *v <= 0 || *v == 65535 || *v >= 4294967295.0) return std::nullopt;
  return v;
}

std::optional<double> ib_rate_mbps(std::string_view text) {
  // "<number> Gb/sec (<width> <speed>)"; the number may have a fraction ("2.5", "13.64").
  text = nic_trim(text);
  const auto space = text.find(' ');
  if (space == std::string_view::npos || text.substr(space + 1, 6) != "Gb/sec") return std::nullopt;
  double gbps = 0;
  const std::string_view number = text.substr(0, space);
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), gbps);
  if (ec != std::errc() || end != number.data() + number.size() || !(gbps > 0) || gbps > 1e6) return std::nullopt;
  return gbps * 1000;
}

std::vector<NicPort> read_nic_ports(const std::string& root) {
  const fs::path r(root);
  std::vector<NicPort> ports;
  for (const std::string& name : nic_dir_names(r / "sys/class/net", kMostNicPorts)) {
    ports.push_back(nic_read_interface(r, name));
  }
  std::size_t rdma = 0;
  for (const std::string& device : nic_dir_names(r / "sys/class/infiniband", kMostNicPorts)) {
    const std::string nets = nic_rdma_nets(r, device);
    for (const std::string& port : nic_dir_names(r / "sys/class/infiniband" / device / "ports", kMostNicPorts)) {
      if (rdma++ >= kMostNicPorts) return ports;
      ports.push_back(nic_read_rdma_port(r, device, port, nets));
    }
  }
  return ports;
}

NicRate choose_nic_rate(const std::vector<NicPort>& ports) {
  struct Step {
    bool (*pick)(const NicPort&);
    const char* what;
  };
  const Step steps[] = {
      {[](const NicPort& p) { return p.kind == "infiniband"; }, "active RDMA port"},
      {[](const NicPort& p) { return p.kind != "infiniband" && p.physical; }, "up physical interface"},
      {[](const NicPort& p) { return p.kind != "infiniband" && !p.physical; }, "up virtual interface"},
  };
  for (const Step& s : steps) {
    std::size_t candidates = 0;
    if (const NicPort* best = nic_fastest(ports, s.pick, candidates)) {
      NicRate out;
      out.interface = best->net.empty() ? best->name : fmt::format("{} ({})", best->name, best->net);
      out.mbps = best->mbps;
      out.source = best->source;
      out.note = candidates == 1 ? fmt::format("the only {} with a rate", s.what)
                                 : fmt::format("the fastest of {} {}s with a rate", candidates, s.what);
      return out;
    }
  }
  NicRate out;
  std::string seen;
  std::size_t listed = 0;
  for (const NicPort& p : ports) {
    if (p.kind == "loopback") continue;
    if (++listed <= 4) seen += fmt::format("{}{}: {}", seen.empty() ? "" : "; ", p.name, p.problem);
  }
  if (listed > 4) seen += fmt::format("; {} more", listed - 4);
  out.note = seen.empty() ? std::string("no network interface but loopback in sysfs")
                          : fmt::format("no up interface with a known rate ({})", seen);
  return out;
}

NicRate read_nic_rate(const std::string& root) {
  NicRate rate = choose_nic_rate(read_nic_ports(root));
  if (!rate.source.empty()) rate.source = (fs::path(root) / rate.source).string();
  return rate;
}

std::string nic_rate_words(const NicRate& rate) {
  if (!rate.mbps) return "unknown: " + rate.note;
  return fmt::format("{} {} ({})", rate.interface, nic_mbps_words(*rate.mbps), rate.source);
}

}  // namespace distbench
