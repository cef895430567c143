// Everything about a run that is not a measurement: tool, arguments, ranks, versions, environment, verdict.
#pragma once

#include "core/comm/backend.hpp"
#include "core/report/record.hpp"
#include "core/report/startup.hpp"
#include "core/sys/nic_rate.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace distbench {

struct RankInfo {
  int rank = 0;
  std::string host;
  int local_rank = 0;
  std::string cpus{};  // the CPUs it was allowed to run on, "0-1" (core/sys/machine_mode.hpp); empty: not recorded
};

// A node's NIC rate as read at run time (core/sys/nic_rate.hpp): one per node, from its first local rank.
struct NodeNicRate {
  std::string host;
  NicRate rate;
};

struct RunInfo {
  std::string tool_version;
  std::string git_sha;
  std::vector<std::string> argv;
  std::string start_time;             // ISO 8601, UTC
  std::string end_time;               // empty while running
  std::string status = "incomplete";  // "complete" | "incomplete" | "failed" | "interrupted"
  std::string error;                  // why it failed or was interrupted, if it was
  int signal = 0;                     // the signal that interrupted it (SIGINT, SIGTERM, SIGHUP); 0: none
  std::string failed_step;            // the kind of step that did not finish within -T (step_kind_name); empty: none
  std::string backend;                // the backend that ran (chosen the same way on every rank)
  int world_size = 0;
  std::vector<RankInfo> ranks;
  StartupRecord startup;          // how long the job took to form, per rank (the root's record; not measured: empty)
  KeyValues versions;             // library, device and machine facts
  KeyValues environment;          // launcher and library variables as set on the root rank
  std::vector<Warning> warnings;  // what the user should know about the results, and what to do about it
  // Each node's NIC rate, in order of first rank (core/sys/nic_rate.hpp); empty: not recorded (older reports).
  std::vector<NodeNicRate> nic_rates;

  // The value of `versions[key]`; empty when the run has none (e.g. "mpi.thread_level" without MPI).
  std::string version(std::string_view key) const {
    for (const auto& [k, v] : versions) {
      if (k == key) return v;
    }
    return {};
  }
};

}  // namespace distbench
