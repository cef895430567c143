// The description of a run that reports carry (core/report/run_info.hpp), gathered from every rank: tool, arguments,
// ranks,
// versions, environment.
#pragma once

#include "core/comm/world.hpp"
#include "core/report/run_info.hpp"
#include "core/sys/machine_mode.hpp"

#include <optional>
#include <string>
#include <vector>

namespace distbench::cli {

// Collective: gathers every rank's host, local rank and allowed CPUs.
RunInfo make_run_info(Connector& connector, World& world, const BackendEntry& entry,
                      const std::vector<std::string>& argv, const ArmedStep& step);

// Collective: each node's NIC rate (core/sys/nic_rate.hpp), read by its first local rank; one entry per node, in
// order of first rank. `hosts` and `local_ranks` per rank, as gathered.
std::vector<NodeNicRate> gather_nic_rates(Connector& connector, const std::vector<std::string>& hosts,
                                          const std::vector<int>& local_ranks, const ArmedStep& step);

// Above this share of the machine's CPU time stolen by its hypervisor over a run, the run says so in a warning.
inline constexpr double kStealWarnFraction = 0.05;
// The machine's steal time since `before` (core/sys/machine_mode.hpp) as the fact "steal_time" ("0.4 % of the
// machine's CPU time over the run", or "unknown: ..." for a run shorter than one accounting tick); a warning
// ("steal_time") in `warnings` above kStealWarnFraction. Nothing when /proc/stat cannot be read.
void note_steal_time(RunInfo& info, std::vector<Warning>& warnings, const std::optional<CpuTicks>& before);

}  // namespace distbench::cli
