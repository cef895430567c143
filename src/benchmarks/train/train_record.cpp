#include "benchmarks/train/train_record.hpp"

#include "core/measure/phase_stats.hpp"
#include "core/measure/stats.hpp"
#include "core/measure/units.hpp"
#include "core/report/summary_items.hpp"

#include <fmt/format.h>

#include <cmath>
#include <utility>

namespace distbench::train {
namespace {

Record with_params(const TrainPlan& plan, const ModeResult& m) {
  Record r;
  r.kind = "train";
  r.set("backend", m.backend)
      .set("model", std::string("mlp"))
      .set("layers", static_cast<std::int64_t>(plan.shape.layers))
      .set("hidden", static_cast<std::int64_t>(plan.shape.hidden))
      .set("inputs", static_cast<std::int64_t>(plan.shape.inputs))
      .set("classes", static_cast<std::int64_t>(plan.shape.classes))
      .set("parameters", m.parameters)
      .set("batch", static_cast<std::int64_t>(plan.batch))
      .set("ranks", static_cast<std::int64_t>(m.step_median_by_rank.size()))
      .set("bucket_mb", plan.bucket_mb)
      .set("buckets", m.buckets)
      .set("overlap", std::string(m.overlap ? "on" : "off"))
      .set("zero", static_cast<std::int64_t>(plan.zero_stage))
      .set("dtype", std::string(name(plan.wire)))
      .set("tp_size", static_cast<std::int64_t>(plan.tp_size));
  return r;
}

}  // namespace

RecordLayout train_layout() {
  RecordLayout l;
  l.params = {"backend", "model",     "layers",  "hidden",  "inputs", "classes", "parameters", "batch",
              "ranks",   "bucket_mb", "buckets", "overlap", "zero",   "dtype",   "tp_size"};
  l.phases = {"step", "compute", "comm"};
  for (const MetricColumn& m : metrics::all) l.metrics.push_back(m.spec());
  l.rank_figures = {{"step_ms", "ms", "this rank's median step"}, {"compute_ms", "ms", "this rank's median compute"}};
  return l;
}

TableLayout train_table() {
  TableLayout t;
  t.key_columns = {{"overlap", "overlap", "", 7, CellFormat::text, "overlap"},
                   {"buckets", "buckets", "", 7, CellFormat::integer, "buckets"}};
  for (const MetricColumn& m : metrics::all) {
    if (*m.title != '\0') t.value_columns.push_back(m.column());
  }
  return t;
}

std::vector<SummaryItem> train_summary(const std::vector<Record>& records) {
  std::vector<SummaryItem> items;
  for (const Record& r : records) {
    const std::string overlap = r.param_text("overlap");
    const double throughput = r.metric(metrics::samples_per_s.key);
    items.push_back({fmt::format("samples_per_s_overlap_{}", overlap), fmt::format("Throughput, overlap {}", overlap),
                     throughput, fmt::format("{:.4g} samples/s", throughput)});
  }
  items.push_back(wrong_item(records, "Parameters beyond the check's tolerance"));
  return items;
}

Record train_record(const TrainPlan& plan, const ModeResult& m, std::vector<Warning>& warnings) {
  Record r = with_params(plan, m);
  const std::size_t ranks = m.step_median_by_rank.size();
  const std::vector<double>& step_max = m.step.stats.samples;
  const double step = percentile(step_max, 50), compute = percentile(m.compute.stats.samples, 50),
               comm_t = percentile(m.comm.stats.samples, 50);
  // Exposed: what the steps themselves waited for their reductions after the backward (slowest rank per step, then
  // the median) — a duration of the same steps, never negative, unlike step minus a compute-only run.
  const double exposed = percentile(m.wait_slowest, 50);
  const bool communicates = m.replicas_per_group > 1 && comm_t > 0;
  if (communicates && exposed > comm_t) {
    warnings.push_back(
        {"figure_out_of_range",
         fmt::format("train, overlap {}: the steps waited {:.3f} ms for their reductions after the backward, more "
                     "than the {:.3f} ms the same collectives take alone: the overlap efficiency would be negative "
                     "and is not given (the collectives were slower inside the step: contention with compute, or "
                     "a rank late to them)",
                     m.overlap ? "on" : "off", exposed * kMilli, comm_t * kMilli)});
  }
  const double batch = static_cast<double>(plan.batch);
  r.set_metric(metrics::step.key, step * kMilli)
      .set_metric(metrics::step_p90.key, percentile(step_max, 90) * kMilli)
      .set_metric(metrics::compute.key, compute * kMilli)
      .set_metric(metrics::comm.key, comm_t * kMilli)
      .set_metric(metrics::exposed.key, exposed * kMilli)
      .set_metric(metrics::overlap_efficiency.key,
                  communicates && exposed <= comm_t ? 1.0 - exposed / comm_t : kNotMeasured)
      .set_metric(metrics::samples_per_s.key, step > 0 ? batch / step : kNotMeasured)
      .set_metric(metrics::samples_per_s_1rank.key, m.one_rank_throughput)
      .set_metric(metrics::scaling_efficiency.key,
                  std::isfinite(m.one_rank_throughput) && step > 0
                      ? batch / step / (static_cast<double>(ranks) * m.one_rank_throughput)
                      : kNotMeasured)
      .set_metric(metrics::loss_first.key, m.loss_first)
      .set_metric(metrics::loss_last.key, m.loss_last)
      .set_metric(metrics::max_rel_diff.key, m.max_rel_diff)
      .set_metric(metrics::wrong.key, m.wrong < 0 ? kNotMeasured : static_cast<double>(m.wrong));
  for (const auto& [name, phase] : {std::pair{"step", &m.step}, {"compute", &m.compute}, {"comm", &m.comm}}) {
    r.phases.push_back(phase->stats);
    r.phases.back().name = name;
  }
  for (std::size_t k = 0; k < ranks; ++k) {
    RankFigures f;
    f.rank = static_cast<int>(k);
    if (k < m.hosts.size()) f.host = m.hosts[k];
    f.figures = {
        {"step_ms", m.step_median_by_rank[k] * kMilli},
        {"compute_ms", k < m.compute_median_by_rank.size() ? m.compute_median_by_rank[k] * kMilli : kNotMeasured}};
    r.ranks.push_back(std::move(f));
  }
  return r;
}

}  // namespace distbench::train
