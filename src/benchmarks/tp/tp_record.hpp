// The tp benchmark's records: an operation's row (kind "tp": time, algbw, busbw, #wrong) and a layer's (kind
// "tp_layer": forward, backward, step, comm, share, TFLOP/s, check), with each kind's layout and table.
#pragma once

#include "benchmarks/tp/plan.hpp"
#include "benchmarks/tp/tp_layers.hpp"
#include "benchmarks/tp/tp_ops.hpp"
#include "core/record.hpp"
#include "core/report/layout.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::tp {

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
// rank's time; `bus_factor` the primitive's; `wrong` -1 when not checked.
Record op_record(const TpPlan& plan, const OpCase& c, const std::vector<std::vector<double>>& by_rank,
                 double bus_factor, std::int64_t wrong);

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
