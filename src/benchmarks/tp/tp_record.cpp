#include "benchmarks/tp/tp_record.hpp"

#include "benchmarks/tp/shard.hpp"
#include "core/phase_stats.hpp"
#include "core/report/summary_items.hpp"
#include "core/stats.hpp"
#include "core/units.hpp"

namespace distbench::tp {

RecordLayout ops_layout() {
  RecordLayout l;
  l.params = {"backend", "op", "pass", "dim", "primitive", "shape", "bytes", "dtype", "group_size", "groups", "ranks"};
  l.phases = {"time"};
  l.metrics = {
      {"time_us", "us", "median of the slowest rank's time per sample"},
      {"algbw_gbps", "GB/s", "the full tensor's bytes / time (collectives only)"},
      {"busbw_gbps", "GB/s", "algbw x the collective's bus factor: allgather (G-1)/G, allreduce 2(G-1)/G"},
      {"wrong", "elements", "--check: elements differing from the non-parallel result; null when not checked"}};
  return l;
}

TableLayout ops_table() {
  TableLayout t;
  t.key_columns = {{"op", "op", "", 8, CellFormat::text, "op"},
                   {"pass", "pass", "", 8, CellFormat::text, "pass"},
                   {"dim", "dim", "", 3, CellFormat::text, "dim"},
                   {"primitive", "runs", "", 9, CellFormat::text, "runs"}};
  t.value_columns = {{"time_us", "time", "(us)", 10, CellFormat::time_us, "time (us)"},
                     {"algbw_gbps", "algbw", "(GB/s)", 8, CellFormat::bandwidth, "algbw (GB/s)"},
                     {"busbw_gbps", "busbw", "(GB/s)", 8, CellFormat::bandwidth, "busbw (GB/s)"},
                     {"wrong", "#wrong", "", 6, CellFormat::checked, "#wrong"}};
  return t;
}

RecordLayout layers_layout() {
  RecordLayout l;
  l.params = {"backend", "layer", "in", "out", "batch", "group_size", "groups", "ranks"};
  l.phases = {"step", "comm"};
  l.metrics = {{"forward_ms", "ms", "forward (device time) of the step shown, on its slowest rank"},
               {"backward_ms", "ms", "backward (device time) of the step shown, on its slowest rank"},
               {"step_ms", "ms",
                "median step (forward + backward, host clock), slowest rank per step: the median sample itself"},
               {"comm_ms", "ms", "time inside the layer's collectives in the step shown, on its slowest rank"},
               {"comm_share", "1", "comm / step"},
               {"tflops", "TFLOP/s", "one rank's floating-point operations / step"},
               {"max_rel_diff", "1", "--check: largest relative difference from the single-rank layer"},
               {"max_over_bound", "1", "--check: largest difference as a fraction of its element's float32 rounding "
                                       "bound (above 1: wrong)"},
               {"wrong", "elements",
                "--check: output and gradient elements beyond the tolerance; null when not "
                "checked"}};
  return l;
}

TableLayout layers_table() {
  TableLayout t;
  t.key_columns = {{"layer", "layer", "", 6, CellFormat::text, "layer"}};
  t.value_columns = {{"forward_ms", "forward", "(ms)", 9, CellFormat::number, "forward (ms)"},
                     {"backward_ms", "backward", "(ms)", 9, CellFormat::number, "backward (ms)"},
                     {"step_ms", "step", "(ms)", 9, CellFormat::number, "step (ms)"},
                     {"comm_ms", "comm", "(ms)", 9, CellFormat::number, "comm (ms)"},
                     {"comm_share", "comm", "share", 7, CellFormat::number, "comm share"},
                     {"tflops", "TFLOP/s", "/rank", 8, CellFormat::number, "TFLOP/s per rank"},
                     {"max_rel_diff", "vs 1 rk", "", 9, CellFormat::number, "max rel diff"},
                     {"wrong", "#wrong", "", 6, CellFormat::checked, "#wrong"}};
  return t;
}

std::vector<SummaryItem> tp_summary(const std::vector<Record>& records) {
  return {wrong_item(records, "Wrong elements")};
}

Record op_record(const TpPlan& plan, const OpCase& c, const std::vector<std::vector<double>>& by_rank,
                 double bus_factor, std::int64_t wrong) {
  const Primitive prim = primitive(c.op, c.pass);
  const std::uint64_t bytes = plan.shape.elements() * size_of(plan.dtype);
  const double t = percentile(slowest_per_sample(by_rank), 50);
  const bool collective = prim == Primitive::allgather || prim == Primitive::allreduce;
  Record rec;
  rec.kind = "tp";
  rec.set("backend", c.backend)
      .set("op", std::string(name(c.op)))
      .set("pass", std::string(name(c.pass)))
      .set("dim", c.dim < 0 ? std::string("-") : std::to_string(c.dim))
      .set("primitive", std::string(name(prim)))
      .set("shape", shape_text(plan.shape))
      .set("bytes", static_cast<std::int64_t>(bytes))
      .set("dtype", std::string(distbench::name(plan.dtype)))
      .set("group_size", static_cast<std::int64_t>(c.group_size))
      .set("groups", static_cast<std::int64_t>(c.ranks / c.group_size))
      .set("ranks", static_cast<std::int64_t>(c.ranks));
  const double algbw = collective && t > 0 ? static_cast<double>(bytes) / t / 1e9 : kNotMeasured;
  rec.set_metric("time_us", t * kMicro)
      .set_metric("algbw_gbps", algbw)
      .set_metric("busbw_gbps", collective ? algbw * bus_factor : kNotMeasured)
      .set_metric("wrong", wrong < 0 ? kNotMeasured : static_cast<double>(wrong));
  rec.phases.push_back(reduce_phase("time", by_rank, RankAverage::max).stats);
  return rec;
}

Record layer_record(const TpPlan& plan, const LayerCase& c, const LayerFigures& f,
                    const std::vector<std::vector<double>>& steps, const std::vector<std::vector<double>>& comms) {
  const double step = f.shown.step, comm = f.shown.parts.comm;
  Record rec;
  rec.kind = "tp_layer";
  rec.set("backend", c.backend)
      .set("layer", std::string(name(c.kind)))
      .set("in", static_cast<std::int64_t>(plan.layer.in))
      .set("out", static_cast<std::int64_t>(plan.layer.out))
      .set("batch", static_cast<std::int64_t>(plan.layer.batch))
      .set("group_size", static_cast<std::int64_t>(c.group_size))
      .set("groups", static_cast<std::int64_t>(c.ranks / c.group_size))
      .set("ranks", static_cast<std::int64_t>(c.ranks));
  rec.set_metric("forward_ms", f.shown.parts.forward * kMilli)
      .set_metric("backward_ms", f.shown.parts.backward * kMilli)
      .set_metric("step_ms", step * kMilli)
      .set_metric("comm_ms", comm * kMilli)
      .set_metric("comm_share", step > 0 ? comm / step : kNotMeasured)
      .set_metric("tflops", step > 0 ? f.flops / step / 1e12 : kNotMeasured)
      .set_metric("max_rel_diff", f.max_rel_diff)
      .set_metric("max_over_bound", f.max_over_bound)
      .set_metric("wrong", f.wrong < 0 ? kNotMeasured : static_cast<double>(f.wrong));
  rec.phases.push_back(reduce_phase("step", steps, RankAverage::max).stats);
  rec.phases.push_back(reduce_phase("comm", comms, RankAverage::max).stats);
  return rec;
}

}  // namespace distbench::tp
