// The tp benchmark's records: an operation's row (kind "tp": time, algbw, busbw, #wrong) and a layer's (kind
// "tp_layer": forward, backward, step, comm, share, TFLOP/s, check), with each kind's layout and table.
#pragma once

#include "benchmarks/tp/plan.hpp"
#include "benchmarks/tp/tp_layers.hpp"
#include "benchmarks/tp/tp_ops.hpp"
#include "core/report/layout.hpp"
#include "core/report/record.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::tp {

// Each metric of an operation's row ("tp"), declared once with its table column, in the layout's and table's order.
namespace op_metrics {
inline constexpr MetricColumn time{
    "time_us",           "us",       "median of the slowest rank's time per sample", "time", "(us)", 10,
    CellFormat::time_us, "time (us)"};
inline constexpr MetricColumn algbw{
    "algbw_gbps",          "GB/s",        "the full tensor's bytes / time (collectives only)", "algbw", "(GB/s)", 8,
    CellFormat::bandwidth, "algbw (GB/s)"};
inline constexpr MetricColumn busbw{"busbw_gbps",
                                    "GB/s",
                                    "algbw x the collective's bus factor: allgather (G-1)/G, allreduce 2(G-1)/G",
                                    "busbw",
                                    "(GB/s)",
                                    8,
                                    CellFormat::bandwidth,
                                    "busbw (GB/s)"};
inline constexpr MetricColumn wrong{"wrong",
                                    "elements",
                                    "--check: elements differing from the non-parallel result; null when not checked",
                                    "#wrong",
                                    "",
                                    6,
                                    CellFormat::checked,
                                    "#wrong"};
inline constexpr MetricColumn all[] = {time, algbw, busbw, wrong};
}  // namespace op_metrics

// Each metric of a layer's row ("tp_layer"), declared once with its table column; `shown`: the table's, in order.
namespace layer_metrics {
inline constexpr MetricColumn forward{
    "forward_ms",       "ms",          "forward (device time) of the step shown, on its slowest rank",
    "forward",          "(ms)",        9,
    CellFormat::number, "forward (ms)"};
inline constexpr MetricColumn backward{
    "backward_ms",      "ms",           "backward (device time) of the step shown, on its slowest rank",
    "backward",         "(ms)",         9,
    CellFormat::number, "backward (ms)"};
inline constexpr MetricColumn step{
    "step_ms",
    "ms",
    "median step (forward + backward, host clock), slowest rank per step: the median sample itself",
    "step",
    "(ms)",
    9,
    CellFormat::number,
    "step (ms)"};
inline constexpr MetricColumn comm{"comm_ms",
                                   "ms",
                                   "time inside the layer's collectives in the step shown, on its slowest rank",
                                   "comm",
                                   "(ms)",
                                   9,
                                   CellFormat::number,
                                   "comm (ms)"};
inline constexpr MetricColumn comm_share{"comm_share", "1", "comm / step",      "comm",
                                         "share",      7,   CellFormat::number, "comm share"};
inline constexpr MetricColumn tflops{
    "tflops",           "TFLOP/s",         "one rank's floating-point operations / step", "TFLOP/s", "/rank", 8,
    CellFormat::number, "TFLOP/s per rank"};
inline constexpr MetricColumn max_rel_diff{"max_rel_diff",
                                           "1",
                                           "--check: largest relative difference from the single-rank layer",
                                           "vs 1 rk",
                                           "",
                                           9,
                                           CellFormat::number,
                                           "max rel diff"};
inline constexpr MetricColumn max_over_bound{
    "max_over_bound", "1",
    "--check: largest difference as a fraction of its element's float32 rounding bound (above 1: wrong)", "", ""};
inline constexpr MetricColumn wrong{"wrong",
                                    "elements",
                                    "--check: output and gradient elements beyond the tolerance; null when not checked",
                                    "#wrong",
                                    "",
                                    6,
                                    CellFormat::checked,
                                    "#wrong"};
inline constexpr MetricColumn all[] = {forward, backward,     step,           comm, comm_share,
                                       tflops,  max_rel_diff, max_over_bound, wrong};
inline constexpr MetricColumn shown[] = {forward, backward, step, comm, comm_share, tflops, max_rel_diff, wrong};
}  // namespace layer_metrics

RecordLayout ops_layout();
TableLayout ops_table();
RecordLayout layers_layout();
TableLayout layers_table();
std::vector<SummaryItem> tp_summary(const std::vector<Record>& records);

// What an operation's row ran, and on how many ranks.
struct OpCase {
  std::string backend;
  Op op = Op::scatter;
  Pass pass = Pass::forward;
  int dim = -1;  // -1: the primitive does not depend on it
  int group_size = 1;
  int ranks = 1;
};
// The row from each rank's samples (seconds; by_rank[r] for world rank r): the median over samples of the slowest
// rank's time; the bus factor the collective table's for the primitive's collective; `wrong` -1 when not checked.
Record op_record(const TpPlan& plan, const OpCase& c, const std::vector<std::vector<double>>& by_rank,
                 std::int64_t wrong);

// What a layer's row ran, and on how many ranks.
struct LayerCase {
  std::string backend;
  LayerKind kind = LayerKind::column;
  int group_size = 1;
  int ranks = 1;
};
// What a layer's row measured: the step shown with its parts, one rank's floating-point operations per step, and the
// check (`wrong` -1 and the differences NaN when not checked).
struct LayerFigures {
  ShownStep shown;
  double flops = 0;
  std::int64_t wrong = -1;
  double max_rel_diff = kNotMeasured;
  double max_over_bound = kNotMeasured;
};
// The row, with the step and comm phases from each rank's samples (seconds; by rank, then sample).
Record layer_record(const TpPlan& plan, const LayerCase& c, const LayerFigures& f,
                    const std::vector<std::vector<double>>& steps, const std::vector<std::vector<double>>& comms);

}  // namespace distbench::tp
