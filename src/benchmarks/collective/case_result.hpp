// One case of the collective sweep as the sweep measures it, reduced across ranks on the root; it becomes a
// Record (collective_record.hpp) for the reporters.
#pragma once

#include "core/measure/os_counters.hpp"
#include "core/measure/stats.hpp"
#include "core/report/record.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::collective {

// The most of a figure over ranks (0 when there are none).
double max_over_ranks(const std::vector<OsCounters>& per_rank, double (OsCounters::*figure)() const);

struct CaseResult {
  std::string collective;              // "allreduce", ...
  std::string backend;                 // "mpi", "nccl"
  std::string dtype;                   // "float32", ...
  std::string op;                      // "sum", ...; "none" for collectives that do not reduce
  std::string placement;               // "out-of-place" | "in-place"
  int tensors = 1;                     // --tensors: the list's length (1: one buffer)
  std::string fusion;                  // with tensors > 1: "per-tensor" | "fused"
  int root = -1;                       // -1 for collectives without a root
  std::uint64_t bytes = 0;             // S, nccl-tests' size convention
  std::uint64_t count = 0;             // elements of the call (nccl-tests' count column)
  int nranks = 0;                      // ranks in the group
  std::string group;                   // partition label: "world", "group-size 2"
  int groups = 1;                      // how many groups ran the case at once
  int cycle = 0;                       // -N: which sweep, from 1; 0 when there is one (no "cycle" parameter then)
  double start_time_s = kNotMeasured;  // -S: when the case started, seconds since the Unix epoch (root's clock)

  int ops_per_sample = 1;
  Summary time;           // seconds per operation, over samples (the -a aggregation across ranks per sample)
  RankSpread rank_time;   // seconds per operation: each rank's mean, spread over ranks
  double time_shown = 0;  // seconds: the figure the table shows (rank_time per -a)
  double algbw = 0;       // GB/s (1e9 bytes per second), from time_shown; not measured when nothing moves
  double busbw = 0;       // GB/s
  // One rank in place: every collective's result is already where its input is, and a library moves nothing (NCCL
  // returns at once); the time is the call's own cost and no bandwidth is given.
  bool moves_nothing = false;
  std::string timing;         // "sampled", "nccl-tests", "osu", "imb" (--timing, resolved)
  bool timing_param = false;  // several methods asked (--timing a,b): the record says which one timed it
  // nccl-tests' timing on a device: the device's events around the same blocks, seconds per operation (-a over
  // ranks); kNotMeasured otherwise.
  double device_time_shown = kNotMeasured;
  std::int64_t wrong = -1;  // wrong elements summed over ranks; -1 when not checked
  bool noise_target_met = true;
  std::vector<double> samples;        // seconds per operation, one per sample (same aggregation as `time`)
  std::vector<double> rank_means;     // per world rank: mean seconds per operation
  std::vector<OsCounters> os_per_op;  // per world rank: page faults and context switches per timed operation
  std::vector<PhaseStats> phases;     // fused lists: "pack", "allreduce", "unpack" (each timed on its own)

  std::string status = "ok";  // "ok" | "skipped"
  std::string skip_reason;
};

}  // namespace distbench::collective
