#include "core/machine_mode.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>

namespace distbench {

std::optional<CpuTicks> parse_cpu_ticks(std::string_view proc_stat) {
  const std::string_view line = proc_stat.substr(0, proc_stat.find('\n'));
  if (line.substr(0, 4) != "cpu ") return std::nullopt;
  // user nice system idle iowait irq softirq steal (guest and guest_nice follow; they are counted in user and nice)
  std::array<std::uint64_t, 8> fields{};
  const char* p = line.data() + 4;
  const char* end = line.data() + line.size();
  for (auto& field : fields) {
    while (p < end && *p == ' ') ++p;
    const auto [next, error] = std::from_chars(p, end, field);
    if (error != std::errc()) return std::nullopt;
    p = next;
  }
  CpuTicks ticks;
  ticks.steal = fields[7];
  for (const std::uint64_t f : fields) ticks.total += f;
  return ticks;
}

std::optional<CpuTicks> machine_cpu_ticks() {
  std::ifstream in("/proc/stat");
  std::string first;
  if (!std::getline(in, first)) return std::nullopt;
  return parse_cpu_ticks(first);
}

std::optional<double> steal_fraction(const CpuTicks& before, const CpuTicks& after) {
  if (after.total <= before.total || after.steal < before.steal) return std::nullopt;
  const double stolen = static_cast<double>(after.steal - before.steal);
  return std::min(1.0, stolen / static_cast<double>(after.total - before.total));
}

std::string cpu_list_text(std::vector<int> cpus) {
  if (cpus.empty()) return "none";
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return text;
}

std::string allowed_cpus_text() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return "unknown";
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpu_list_text(std::move(cpus));
}

}  // namespace distbench
