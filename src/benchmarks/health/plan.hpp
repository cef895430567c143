// What `distbench health` runs: sizes, repetitions, bounds and thresholds, from its options.
#pragma once

#include "benchmarks/health/judge.hpp"
#include "benchmarks/health/levels.hpp"
#include "benchmarks/health/schedule.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace distbench::health {

// What the reports keep (--detail): every check, or (problems) the checks that are not healthy, every node's and the
// job's, a summary of each node's links and of each node's ranks (its worst rank per figure); auto: every check up to
// kEveryCheckUpToNodes nodes. The verdicts are the same either way.
enum class Detail { automatic, all, problems };
inline constexpr int kEveryCheckUpToNodes = 8;
inline bool keeps_every_check(Detail d, std::size_t nodes) {
  return d == Detail::all || (d == Detail::automatic && nodes <= static_cast<std::size_t>(kEveryCheckUpToNodes));
}

// The link phases run rounds of pairs, and the link phase of a large cluster many of them: each may take -T per
// kLinkRoundsPerTimeout rounds, at least -T (26 nodes, scaled: 14 rounds, 1.4 x -T; 1,000 nodes: 24 rounds, 2.4 x -T;
// what a round took on the namespace cluster: docs/health.md, 'Scale').
inline constexpr int kLinkRoundsPerTimeout = 10;
inline double link_phase_timeout_s(double timeout_s, std::size_t rounds) {
  return timeout_s * std::max(1.0, static_cast<double>(rounds) / kLinkRoundsPerTimeout);
}

struct HealthPlan {
  double timeout_s = 30;  // each phase (--timeout)
  std::size_t memory_bytes = std::size_t{256}
                             << 20;                // allocated and touched per rank (at most a quarter of what is free)
  std::size_t copy_bytes = std::size_t{32} << 20;  // each copy of the memory bandwidth probe
  // ... on a GPU: larger, past its L2 cache (50 MB on an H200) and its launch cost, so that twice the copy rate is the
  // memory's (H200, GPU run 9: 32 MiB copies read 53 % of the datasheet's bandwidth, 64 MiB 75 %)
  std::size_t gpu_copy_bytes = std::size_t{128} << 20;
  int copy_repetitions = 8;                               // the best of at least these ...
  double min_probe_seconds = 0.1;                         // ... and of this long (copies, link windows)
  std::size_t allreduce_bytes = std::size_t{8} << 20;     // node and job allreduce
  int allreduce_repetitions = 10;                         // timed, after one warm-up and one verified call
  std::size_t link_message_bytes = std::size_t{1} << 20;  // pairwise bandwidth: messages of this size ...
  int link_window = 4;                                    // ... this many in flight ...
  int link_repetitions = 3;                               // ... the best of at least this many windows (and of
                                                          // min_probe_seconds, at most 50), after one warm-up
  int retest_attempts = 3;       // a suspect is condemned only when it misses its bound this many times alone
  int latency_round_trips = 20;  // pairwise latency: the median of these, after 5 warm-up
  int straggler_iterations = 20;
  double straggler_min_lateness_us = 1000;  // a rank is a straggler when it is last in most iterations by this much
  double straggler_last_fraction = 0.75;
  double straggler_work_factor = 1.5;              // ... and its own local work takes this much longer than the median
  double late_start_s = 5;                         // a node whose rank began this long after the first is degraded
  double clock_skew_ms = 100;                      // hosts whose wall clocks differ more from the root's are degraded
  std::optional<double> expect_busbw_gbps;         // the job's allreduce busbw must reach this (--expect-busbw)
  Rules rules;                                     // --rules
  std::string rules_path;                          // the file they came from ("" when none)
  RelativeRule bandwidth{0.25, 4.0};               // bandwidths against the cluster's median
  RelativeRule latency{1.0, 4.0};                  // latencies: twice the median, and 4 MAD
  std::string prom_path;                           // --prom: Prometheus text for node-exporter's textfile collector
  LinkMode links = LinkMode::automatic;            // --links: every pair, or the scaled schedule (auto: by node count)
  std::uint64_t link_seed = 1;                     // --link-seed: the scaled schedule's random ring
  Detail detail = Detail::automatic;               // --detail: every check in the reports, or what is not healthy
  std::optional<int> gpus_per_node;                // --gpus-per-node (or the rules file's): what NVML must count
  std::string nvml_library = "libnvidia-ml.so.1";  // the file NVML is opened from (the driver's)
  std::size_t gemm_size = 4096;                    // the rank phase's SGEMM: n x n x n, on a GPU
  Level level = Level::standard;                   // --level: which phases run (levels.hpp)
  double soak_seconds = 0;                         // --soak-seconds: the data-corruption soak's budget (0: no soak)
  bool slurm_drain = false;  // --slurm-drain: the root drains the bad nodes and resumes its own drains (slurm_run.hpp)
};

}  // namespace distbench::health
