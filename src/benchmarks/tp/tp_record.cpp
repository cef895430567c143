#include "benchmarks/tp/tp_record.hpp"

#include "benchmarks/tp/shard.hpp"
#include "benchmarks/tp/tp_ops.hpp"
#include "core/device/collective.hpp"
#include "core/measure/phase_stats.hpp"
#include "core/measure/stats.hpp"
#include "core/measure/units.hpp"
#include "core/report/summary_items.hpp"

namespace distbench::tp {

RecordLayout ops_layout() {
  RecordLayout l;
  l.params = {"backend", "op", "pass", "dim", "primitive", "shape", "bytes", "dtype", "group_size", "groups", "ranks"};
  l.phases = {"time"};
  for (const MetricColumn& m : op_metrics::all) l.metrics.push_back(m.spec());
  return l;
}

TableLayout ops_table() {
  TableLayout t;
  t.key_columns = {{"op", "op", "", 8, CellFormat::text, "op"},
                   {"pass", "pass", "", 8, CellFormat::text, "pass"},
                   {"dim", "dim", "", 3, CellFormat::text, "dim"},
                   {"primitive", "runs", "", 9, CellFormat::text, "runs"}};
  for (const MetricColumn& m : op_metrics::all) t.value_columns.push_back(m.column());
  return t;
}

RecordLayout layers_layout() {
  RecordLayout l;
  l.params = {"backend", "layer", "in", "out", "batch", "group_size", "groups", "ranks"};
  l.phases = {"step", "comm"};
  for (const MetricColumn& m : layer_metrics::all) l.metrics.push_back(m.spec());
  return l;
}

TableLayout layers_table() {
  TableLayout t;
  t.key_columns = {{"layer", "layer", "", 6, CellFormat::text, "layer"}};
  for (const MetricColumn& m : layer_metrics::shown) t.value_columns.push_back(m.column());
  return t;
}

std::vector<SummaryItem> tp_summary(const std::vector<Record>& records) {
  return {wrong_item(records, "Wrong elements")};
}

Record op_record(const TpPlan& plan, const OpCase& c, const std::vector<std::vector<double>>& by_rank,
                 std::int64_t wrong) {
  const Primitive prim = primitive(c.op, c.pass);
  const std::uint64_t bytes = plan.shape.elements() * size_of(plan.dtype);
  const double t = percentile(slowest_per_sample(by_rank), 50);
  const std::optional<Collective> collective = collective_of(prim);
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
  rec.set_metric(op_metrics::time.key, t * kMicro)
      .set_metric(op_metrics::algbw.key, algbw)
      .set_metric(op_metrics::busbw.key, collective ? algbw * bus_factor(*collective, c.group_size) : kNotMeasured)
      .set_metric(op_metrics::wrong.key, wrong < 0 ? kNotMeasured : static_cast<double>(wrong));
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
  rec.set_metric(layer_metrics::forward.key, f.shown.parts.forward * kMilli)
      .set_metric(layer_metrics::backward.key, f.shown.parts.backward * kMilli)
      .set_metric(layer_metrics::step.key, step * kMilli)
      .set_metric(layer_metrics::comm.key, comm * kMilli)
      .set_metric(layer_metrics::comm_share.key, step > 0 ? comm / step : kNotMeasured)
      .set_metric(layer_metrics::tflops.key, step > 0 ? f.flops / step / 1e12 : kNotMeasured)
      .set_metric(layer_metrics::max_rel_diff.key, f.max_rel_diff)
      .set_metric(layer_metrics::max_over_bound.key, f.max_over_bound)
      .set_metric(layer_metrics::wrong.key, f.wrong < 0 ? kNotMeasured : static_cast<double>(f.wrong));
  rec.phases.push_back(reduce_phase("step", steps, RankAverage::max).stats);
  rec.phases.push_back(reduce_phase("comm", comms, RankAverage::max).stats);
  return rec;
}

}  // namespace distbench::tp
