// What tells one run-wide mode of a shared machine from another: the same small allreduce can run at one speed for a
// whole run and at another for the next, in every tool. Two witnesses go in the report: the share of the machine's CPU
// time that its hypervisor took over the run (steal time, /proc/stat) and the CPUs each rank was allowed to run on.
// Linux only; a figure the system does not give is std::nullopt, never a guess.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench {

// The machine's CPU time since boot in clock ticks, all CPUs together: user, nice, system, idle, iowait, irq,
// softirq and steal (what the hypervisor took; guest time is inside user).
struct CpuTicks {
  using Fields = std::array<std::uint64_t, 8>;
  static constexpr std::size_t kSteal = 7;
  Fields fields{};
  std::uint64_t steal() const { return fields[kSteal]; }
};
// From the text of /proc/stat (its first line, "cpu  ..."); nullopt when that line is missing or malformed.
std::optional<CpuTicks> parse_cpu_ticks(std::string_view proc_stat);
std::optional<CpuTicks> machine_cpu_ticks();
// The share (0..1) of the machine's CPU time stolen between two readings, from each counter's growth (a counter
// that went backwards counts as not grown: proc(5) says iowait can decrease); nullopt when no tick passed (a
// busy CPU's time is counted a tick, 10 ms, at a time: a run of a few ms may see none).
std::optional<double> steal_fraction(const CpuTicks& before, const CpuTicks& after);

// CPU numbers as a list of ranges, "0-3,6"; "none" for an empty list.
std::string cpu_list_text(std::vector<int> cpus);
// The CPUs this process may run on (sched_getaffinity), as cpu_list_text; "unknown" when the system does not say.
std::string allowed_cpus_text();

}  // namespace distbench
