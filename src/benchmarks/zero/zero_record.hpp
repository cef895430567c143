// How `distbench zero` shows a stage: the record of its measured step beside the formulas, the table and the summary.
#pragma once

#include "benchmarks/zero/formulas.hpp"
#include "core/measure/phase_stats.hpp"
#include "core/report/layout.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::zero {

// Each metric of a zero record, declared once with its table column, in the layout's order (a title of "": in the
// reports, in no table; the table shows the others in the same order). The record builder, the layout, the table and
// the summary read these.
namespace metrics {
inline constexpr MetricColumn step{
    "step_ms",          "ms",       "one step: mean over ranks of each rank's mean", "step", "(ms)", 9,
    CellFormat::number, "step (ms)"};
inline constexpr MetricColumn reduce{"reduce_ms",
                                     "ms",
                                     "gradient reduction (allreduce or reduce-scatter, bucket by bucket; stage 3 "
                                     "layer by layer)",
                                     "reduce",
                                     "(ms)",
                                     9,
                                     CellFormat::number,
                                     "reduce (ms)"};
inline constexpr MetricColumn update{"update_ms",        "ms",         "the fused Adam update of the rank's shard",
                                     "update",           "(ms)",       9,
                                     CellFormat::number, "update (ms)"};
inline constexpr MetricColumn gather{"gather_ms",
                                     "ms",
                                     "parameter allgathers (stage 3: every layer before the forward and again before "
                                     "the backward)",
                                     "gather",
                                     "(ms)",
                                     9,
                                     CellFormat::number,
                                     "gather (ms)"};
inline constexpr MetricColumn layer_gather{"layer_gather_ms",
                                           "ms",
                                           "stage 3: one layer's allgather (gather_ms / 2 layers)",
                                           "layer",
                                           "gath(ms)",
                                           9,
                                           CellFormat::number,
                                           "per-layer gather (ms)"};
inline constexpr MetricColumn predicted{"predicted_ms",
                                        "ms",
                                        "the step's collectives and update, each timed alone in the same run, added up",
                                        "predict",
                                        "(ms)",
                                        9,
                                        CellFormat::number,
                                        "predicted (ms)"};
inline constexpr MetricColumn step_vs_predicted{
    "step_vs_predicted", "1", "step_ms / predicted_ms", "ratio", "", 6, CellFormat::number, "step/predicted"};
inline constexpr MetricColumn update_gbps{"update_gbps", "GB/s",
                                          "bytes the update moves (read grad, master, m, v; write master, m, v, "
                                          "param) / update time",
                                          "", ""};
inline constexpr MetricColumn copy_gbps{"copy_gbps", "GB/s",
                                        "the device's copy bandwidth (bytes read + written / time), measured in the "
                                        "same run",
                                        "", ""};
inline constexpr MetricColumn update_vs_copy{
    "update_vs_copy", "1", "update_gbps / copy_gbps", "upd/cp", "", 6, CellFormat::number, "update/copy bw"};
inline constexpr MetricColumn sent{"sent_mb",
                                   "MB",
                                   "formula: bytes each rank sends per step (ring algorithms, (N-1)/N of each padded "
                                   "segment)",
                                   "sent",
                                   "(MB)",
                                   9,
                                   CellFormat::number,
                                   "sent, formula (MB)"};
inline constexpr MetricColumn net_sent{"net_sent_mb",
                                       "MB",
                                       "measured: bytes the hosts' network interfaces sent per step, per rank (mean "
                                       "over ranks; null on one host)",
                                       "net tx",
                                       "(MB)",
                                       9,
                                       CellFormat::number,
                                       "net sent (MB)"};
inline constexpr MetricColumn net_received{"net_received_mb", "MB",
                                           "measured: bytes the interfaces received per step, per rank", "", ""};
inline constexpr MetricColumn state{"state_mb",
                                    "MB",
                                    "formula: model states per rank (parameters, gradients, optimizer state)",
                                    "states",
                                    "(MB)",
                                    9,
                                    CellFormat::number,
                                    "model states, formula (MB)"};
inline constexpr MetricColumn buffer{"buffer_mb",
                                     "MB",
                                     "formula: the buffers the step adds (stage 2: one bucket; stage 3: one layer "
                                     "and its gradients)",
                                     "+bufs",
                                     "(MB)",
                                     8,
                                     CellFormat::number,
                                     "+ buffers (MB)"};
inline constexpr MetricColumn library{"library_mb",
                                      "MB",
                                      "the temporary the backend's reductions allocate (MPI: one bucket or layer of "
                                      "gradients)",
                                      "+mpi",
                                      "(MB)",
                                      8,
                                      CellFormat::number,
                                      "+ library (MB)"};
inline constexpr MetricColumn held{"held_mb", "MB", "bytes the step allocated, largest over ranks", "", ""};
inline constexpr MetricColumn peak_rss{"peak_rss_mb",
                                       "MB",
                                       "measured: growth of peak resident memory over the stage, largest over ranks",
                                       "peak",
                                       "(MB)",
                                       9,
                                       CellFormat::number,
                                       "peak RSS (MB)"};
inline constexpr MetricColumn peak_vs_predicted{"peak_vs_predicted", "1",
                                                "peak_rss_mb / (state_mb + buffer_mb + library_mb)", "", ""};
inline constexpr MetricColumn device{"device_mb",
                                     "MB",
                                     "measured on a GPU: device memory the step's arrays took (the CUDA runtime's "
                                     "free memory before and after they were made), largest over ranks; null on host "
                                     "memory",
                                     "device",
                                     "(MB)",
                                     9,
                                     CellFormat::number,
                                     "device memory (MB)"};
inline constexpr MetricColumn device_vs_predicted{"device_vs_predicted", "1", "device_mb / (state_mb + buffer_mb)", "",
                                                  ""};
inline constexpr MetricColumn device_step{"device_step_mb", "MB",
                                          "measured on a GPU: device memory the timed steps added beyond the arrays "
                                          "(the backend's buffers, made at a collective's first use), largest over "
                                          "ranks",
                                          "", ""};
inline constexpr MetricColumn padding{"padding", "elements",
                                      "padding added so that every rank's shard of every segment is equal", "", ""};
inline constexpr MetricColumn faults{
    "faults_per_step", "1", "page faults per timed step, the most of any rank (the library's temporaries)", "", ""};
inline constexpr MetricColumn wrong{"wrong",
                                    "elements",
                                    "elements differing from a single-rank run after --check's steps; null when not "
                                    "checked",
                                    "#wrong",
                                    "",
                                    6,
                                    CellFormat::checked,
                                    "#wrong"};
inline constexpr MetricColumn all[] = {
    step,        reduce,    update,         gather,   layer_gather,      predicted,    step_vs_predicted,
    update_gbps, copy_gbps, update_vs_copy, sent,     net_sent,          net_received, state,
    buffer,      library,   held,           peak_rss, peak_vs_predicted, device,       device_vs_predicted,
    device_step, padding,   faults,         wrong};
}  // namespace metrics

// One stage's figures, gathered on the root. Per-rank vectors are indexed by world rank; NaN: not measured.
struct StageResult {
  Stage stage = Stage::s0;
  std::string backend, dtype, zero1;
  std::uint64_t params = 0;
  std::size_t layers = 0;
  double bucket_mb = 0;
  std::size_t ranks = 1;
  std::vector<std::string> phase_names;  // in the order they ran
  // Seconds per step, reduced across the ranks (-a avg; core/comm/phase_over_ranks.hpp: no rank's samples whole):
  // the step's, and each phase's in the order of phase_names.
  ReducedPhase step;
  std::vector<ReducedPhase> phases;
  int ops_per_sample = 1;
  bool noise_target_met = true;
  double predicted_s = 0;     // the step's collectives and update, each timed alone, added up
  double update_bytes = 0;    // bytes the slowest rank's update moves
  double copy_gbps = 0;       // the device's copy bandwidth (GB/s), measured in the same run
  Memory state;               // formulas: model states per rank
  std::uint64_t buffers = 0;  // formulas: the step's buffers per rank
  std::uint64_t library = 0;  // the backend's reduction temporary (zero_benchmark.hpp)
  std::uint64_t sent = 0;     // formulas: bytes each rank sends per step
  std::size_t padding = 0;    // padding elements of the shards
  std::vector<double> held_bytes, peak_rss_bytes, net_sent_bytes, net_received_bytes;
  // A GPU's memory (the CUDA runtime's free memory; NaN on host memory): what the step's arrays took, and what the
  // timed steps added (the backend's buffers made at a collective's first use).
  std::vector<double> device_array_bytes, device_step_bytes;
  double faults_per_step = kNotMeasured;  // page faults per timed step, the most of any rank
  bool network_measured = false;          // ranks on more than one host: the interfaces carry the step's traffic
  std::int64_t wrong = -1;                // elements that differ from the reference over all ranks; -1: not checked
  std::vector<std::string> hosts;
};

RecordLayout zero_record_layout();
// Each metric of metrics::all with a title, in that order; with both forms of stage 1, a column says which reduction
// each row's stage 1 ran.
TableLayout zero_table(bool both_zero1_forms = false);
std::vector<SummaryItem> zero_summary(const std::vector<Record>& records);
Record zero_record(const StageResult& r);

}  // namespace distbench::zero
