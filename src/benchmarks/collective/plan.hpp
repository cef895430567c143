// What a collective sweep runs: validated options, independent of how they were typed.
#pragma once

#include "benchmarks/collective/bandwidth_floor.hpp"
#include "core/comm/backend.hpp"
#include "core/device/collective.hpp"
#include "core/device/dtype.hpp"
#include "core/device/reduce_op.hpp"
#include "core/measure/phase_stats.hpp"
#include "core/measure/stopping.hpp"
#include "core/report/per_rank.hpp"
#include "core/report/record.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace distbench::collective {

// How a list of tensors is all-reduced (--tensors N): one call per tensor (the seeds' pass), or packed into one
// buffer, one call, unpacked (their "fuse small tensors").
enum class Fusion { per_tensor, fused };
std::string_view name(Fusion f);

// How a case is timed (--timing). sampled: samples of k calibrated operations at one buffer position, timed where
// they run (CUDA events on a GPU, the host clock for MPI). nccl_tests: nccl-tests' method, blocks of -n operations
// (x -m, x -G) at rotating buffer positions, timed on the host clock from before the first enqueue until the
// streams are idle, with the device's events around the same block beside. automatic: nccl_tests on a backend
// whose calls run on a device, else sampled.
// How a case is timed: sampled (distbench's), nccl_tests (all_reduce_perf's blocks), osu and imb (one call at a time
// with a barrier after each, the peers' own counts: peer_counts.hpp).
enum class Timing { automatic, sampled, nccl_tests, osu, imb };
std::string_view name(Timing t);
Timing resolve(Timing asked, bool runs_on_device);

// -r -1: every rank of the group is the root in turn.
inline constexpr int kAllRoots = -1;

struct SweepPlan {
  Collective collective = Collective::allreduce;
  std::string backend = "auto";  // as asked; the report records the one chosen
  BackendOptions backend_options;
  std::vector<std::uint64_t> sizes;  // bytes, as the user asked for them (before rounding to whole elements)
  std::vector<DType> dtypes = {DType::float32};
  std::vector<ReduceOp> ops = {ReduceOp::sum};
  std::vector<Placement> placements = {Placement::out_of_place, Placement::in_place};
  int root = 0;        // group rank; kAllRoots: every rank of the group in turn, one row each (nccl-tests' -r -1)
  int group_size = 0;  // 0: the whole world
  int warmup_iters = 5;
  StoppingRule stopping;
  // --timing a,b: every case timed by each method in turn, a column group each (records then carry "timing").
  std::vector<Timing> timings = {Timing::automatic};
  // nccl-tests' timing: operations per timed block (its -n; -n here when given), and the rule that picks how many
  // blocks a case takes (-n not counted as samples).
  int block_iters = 20;
  StoppingRule block_stopping;
  bool blocks_given = false;  // --blocks: block_stopping takes exactly that many
  // --timing osu|imb: -n and -w as given (0 and -1: not given, the peer's own counts at each size)
  int iters_given = 0;
  int warmup_given = -1;
  int check_iters = 1;      // -c: verifications per case, each refilled and poisoned afresh (0: none)
  int cycles = 1;           // -N: the whole sweep this many times, each a set of rows of its own
  bool timestamps = false;  // -S: each record's start time (metric start_time_s) and a table column
  bool cpu_time = false;    // -C: time the calls on the host clock, not where they run (CUDA events for nccl)
  // -I: nccl-tests' per-iteration statistics in its JSON (-J/--output-file); -K: the first samples they leave out
  bool per_iter_timing = false;
  int per_iter_skip = 0;
  RankAverage average = RankAverage::avg;
  double timeout_s = 300.0;
  BandwidthFloor floor;  // --min-busbw / --min-algbw: exit code 6 below it
  // --columns: statistics of each case's samples added to the table: "median", "mean", "p99", "noise", "samples" (with
  // a noise target the noise column is always shown, so that the rows that missed it can be marked).
  std::vector<std::string> columns;
  bool show_faults = false;   // table: page faults and context switches per operation (always in the reports)
  bool huge_pages = false;    // --huge-pages on: distbench's buffers advised huge pages (core/device/huge_pages.hpp)
  bool malloc_reuse = false;  // mallopt before MPI starts: freed memory stays mapped (see malloc_tuning.hpp)
  // --tensors N (allreduce): each operation reduces a list of N tensors of S/N bytes, in place, as `fusions` say;
  // 1: one buffer, as every other sweep.
  int tensors = 1;
  std::vector<Fusion> fusions = {Fusion::per_tensor, Fusion::fused};
  // Options given that mean nothing for this collective (-o on allgather, -r on allreduce): the run goes on and the
  // root rank reports these at the end.
  std::vector<Warning> ignored_options;
  PerRankOptions per_rank;  // --per-rank, --per-rank-file: what the records keep of each rank's figures
};

// The plan's methods as they run on a backend whose calls run on a device or not (automatic resolved).
std::vector<Timing> resolved_timings(const SweepPlan& plan, bool runs_on_device);
// Where host buffers start: at a page boundary when OSU's method is among the timings (osu_* page-aligns its
// buffers), else 16 B past one (malloc's placement, IMB's). Device memory has one placement.
HostPlacement buffer_placement(const SweepPlan& plan);
// Whether one of them is `t`.
bool times_by(const SweepPlan& plan, Timing t, bool runs_on_device);

}  // namespace distbench::collective
