#include "core/sys/machine_mode.hpp"

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
  CpuTicks ticks;
  const char* p = line.data() + 4;
  const char* end = line.data() + line.size();
  for (auto& field : ticks.fields) {
    while (p < end && *p == ' ') ++p;
    const auto [next, error] = std::from_chars(p, end, field);
    if (error != std::errc()) return std::nullopt;
    p = next;
  }
  return ticks;
}

std::optional<CpuTicks> machine_cpu_ticks() {
  std::ifstream in("/proc/stat");
  std::string first;
  if (!std::getline(in, first)) return std::nullopt;
  return parse_cpu_ticks(first);
}

std::optional<double> steal_fraction(const CpuTicks& before, const CpuTicks& after) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < before.fields.size(); ++i) {
    total += after.fields[i] > before.fields[i] ? after.fields[i] - before.fields[i] : 0;
  }
  if (total == 0) return std::nullopt;
  const std::uint64_t stolen = after.steal() > before.steal() ? after.steal() - before.steal() : 0;
  return static_cast<double>(stolen) / static_cast<double>(total);  // stolen is one of the summed growths
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
