// One train mode's record (overlap on or off), built on the root from what every rank measured in that mode; the
// records' layout, table and summary.
#pragma once

#include "benchmarks/train/plan.hpp"
#include "core/benchmark.hpp"
#include "core/measure/phase_stats.hpp"
#include "core/report/layout.hpp"
#include "core/report/record.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::train {

// Each metric of a train record, declared once with its table column, in the layout's order (a title of "": in the
// reports, in no table). The record builder, the layout, the table and the summary read these.
namespace metrics {
inline constexpr MetricColumn step{
    "step_ms",
    "ms",
    "median step (forward, backward, gradient allreduces, update), slowest rank per step",
    "step",
    "(ms)",
    9,
    CellFormat::number,
    "step (ms)"};
inline constexpr MetricColumn step_p90{"step_p90_ms",      "ms",      "90th percentile of the step", "p90", "(ms)", 9,
                                       CellFormat::number, "p90 (ms)"};
inline constexpr MetricColumn compute{
    "compute_ms",       "ms",          "median of forward + backward alone (no communication) + the step's update",
    "compute",          "(ms)",        9,
    CellFormat::number, "compute (ms)"};
inline constexpr MetricColumn comm{
    "comm_ms",          "ms",       "median of every bucket's allreduce alone (no compute)", "comm", "(ms)", 9,
    CellFormat::number, "comm (ms)"};
inline constexpr MetricColumn exposed{"exposed_ms",
                                      "ms",
                                      "the communication the step did not hide: what it waited for its reductions "
                                      "after the backward (median of the slowest rank per step)",
                                      "exposed",
                                      "(ms)",
                                      9,
                                      CellFormat::number,
                                      "exposed (ms)"};
inline constexpr MetricColumn overlap_efficiency{
    "overlap_efficiency",
    "1",
    "1 - exposed / comm (1: all communication hidden; 0: none); null with one replica (nothing to communicate) or "
    "when exposed exceeds comm (a figure_out_of_range warning says so)",
    "hidden",
    "",
    7,
    CellFormat::number,
    "overlap efficiency"};
inline constexpr MetricColumn samples_per_s{"samples_per_s", "1/s", "global batch / median step", "samples",
                                            "(/s)",          9,     CellFormat::number,           "samples/s"};
inline constexpr MetricColumn loss_first{"loss_first", "1", "mean loss over ranks at the first timed step", "", ""};
inline constexpr MetricColumn loss_last{
    "loss_last", "1", "mean loss over ranks at the last step", "loss", "", 7, CellFormat::number, "loss"};
inline constexpr MetricColumn samples_per_s_1rank{
    "samples_per_s_1rank", "1/s", "--scaling: one rank alone training a rank's share of each batch", "", ""};
inline constexpr MetricColumn scaling_efficiency{"scaling_efficiency",
                                                 "1",
                                                 "--scaling: samples_per_s / (ranks x samples_per_s_1rank)",
                                                 "scaling",
                                                 "",
                                                 7,
                                                 CellFormat::number,
                                                 "scaling efficiency"};
inline constexpr MetricColumn max_rel_diff{
    "max_rel_diff",
    "1",
    "--check: largest relative difference from one rank trained on the global batches",
    "vs 1 rk",
    "",
    9,
    CellFormat::number,
    "max rel diff"};
inline constexpr MetricColumn wrong{
    "wrong",
    "parameters",
    "--check: reduced gradients beyond their rounding bound at the warm-up steps, parameters beyond the tolerance, "
    "and the ranks whose parameters differ bit for bit from their first replica's; null when not checked",
    "#wrong",
    "",
    6,
    CellFormat::checked,
    "#wrong"};
inline constexpr MetricColumn all[] = {step,
                                       step_p90,
                                       compute,
                                       comm,
                                       exposed,
                                       overlap_efficiency,
                                       samples_per_s,
                                       loss_first,
                                       loss_last,
                                       samples_per_s_1rank,
                                       scaling_efficiency,
                                       max_rel_diff,
                                       wrong};
}  // namespace metrics

RecordLayout train_layout();
TableLayout train_table();  // each metric of metrics::all with a title, in that order
std::vector<SummaryItem> train_summary(const std::vector<Record>& records);

// What one mode measured, reduced onto the root: per timed step (seconds).
struct ModeResult {
  bool overlap = false;
  std::string backend;
  std::int64_t parameters = 0;
  std::int64_t buckets = 0;
  int replicas_per_group = 1;  // ranks in the data-parallel group: 1 means nothing to communicate
  // Each phase reduced across the ranks (core/comm/phase_over_ranks.hpp: no rank's steps travel whole): per step
  // the slowest rank (-a max), and each rank's mean; the wait for the reductions, the slowest rank per step; and each
  // rank's median step and compute (its own figures).
  ReducedPhase step, compute, comm;
  std::vector<double> wait_slowest;
  std::vector<double> step_median_by_rank, compute_median_by_rank;
  double loss_first = 0, loss_last = 0;       // means over ranks
  double max_rel_diff = kNotMeasured;         // --check: against one rank on the global batches
  std::int64_t wrong = -1;                    // --check: -1 when not checked
  double one_rank_throughput = kNotMeasured;  // --scaling: samples per second of one rank alone
  std::vector<std::string> hosts;             // per rank
};

// The record of one mode; a figure out of its range adds its warning to `warnings`.
Record train_record(const TrainPlan& plan, const ModeResult& m, std::vector<Warning>& warnings);

}  // namespace distbench::train
