// `distbench health --slurm-drain` on the root, after the verdict: one `scontrol show node` query for every node of
// the check, then one `scontrol update` per node to drain or resume (slurm_drain.hpp decides which), each call bounded
// and all of them within a budget, so that a slow or absent slurmctld cannot hang the check. What happened becomes
// records (phase "slurm", information: they change no verdict) and at most one warning line.
#pragma once

#include "benchmarks/health/slurm_drain.hpp"
#include "core/report/record.hpp"
#include "core/sys/program_run.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace distbench::health {

inline constexpr double kScontrolCallSeconds = 10;         // each call, at most (then SIGKILL)
inline constexpr std::size_t kScontrolOutputBytes = 4096;  // of an update's stdout and of its stderr, kept
inline constexpr std::size_t kQueryBytesPerNode = 4096;    // the query's stdout: this much per node asked ...
inline constexpr std::size_t kQueryBaseBytes = 64 * 1024;  // ... and this much more
inline constexpr double kSlurmCallMinSeconds = 0.1;        // a call is not begun with less of the budget left

// Runs one program: run_program, or a test's stand-in.
using ProgramRunner =
    std::function<ProgramOutcome(const std::vector<std::string>& argv, double timeout_s, std::size_t cap_bytes)>;

struct SlurmDrainSettings {
  double budget_s = 30;  // every call together (health gives -T)
  std::string scontrol;  // its path; "" when it is not on PATH
  std::string path;      // the PATH it was looked for in (for the message when it was not found)
  ProgramRunner run = run_program;
};

struct SlurmDrainOutcome {
  std::vector<Check> records;     // phase "slurm": one per node with a step, a failed query, and the summary
  std::vector<Warning> warnings;  // at most one: what could not be done
};

SlurmDrainOutcome drain_in_slurm(const std::vector<SlurmCandidate>& nodes, const SlurmDrainSettings& settings);

}  // namespace distbench::health
