#include "benchmarks/train/train_record.hpp"

#include "core/measure/phase_stats.hpp"
#include "core/measure/stats.hpp"
#include "core/measure/units.hpp"

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
      .set("ranks", static_cast<std::int64_t>(m.step_by_rank.size()))
      .set("bucket_mb", plan.bucket_mb)
      .set("buckets", m.buckets)
      .set("overlap", std::string(m.overlap ? "on" : "off"))
      .set("zero", static_cast<std::int64_t>(plan.zero_stage))
      .set("dtype", std::string(name(plan.wire)))
      .set("tp_size", static_cast<std::int64_t>(plan.tp_size));
  return r;
}

}  // namespace

Record train_record(const TrainPlan& plan, const ModeResult& m, std::vector<Warning>& warnings) {
  Record r = with_params(plan, m);
  const std::size_t ranks = m.step_by_rank.size();
  const std::vector<double> step_max = slowest_per_sample(m.step_by_rank);
  const double step = percentile(step_max, 50), compute = percentile(slowest_per_sample(m.compute_by_rank), 50),
               comm_t = percentile(slowest_per_sample(m.comm_by_rank), 50);
  // Exposed: what the steps themselves waited for their reductions after the backward (slowest rank per step, then
  // the median) — a duration of the same steps, never negative, unlike step minus a compute-only run.
  const double exposed = percentile(slowest_per_sample(m.wait_by_rank), 50);
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
  r.set_metric("step_ms", step * kMilli)
      .set_metric("step_p90_ms", percentile(step_max, 90) * kMilli)
      .set_metric("compute_ms", compute * kMilli)
      .set_metric("comm_ms", comm_t * kMilli)
      .set_metric("exposed_ms", exposed * kMilli)
      .set_metric("overlap_efficiency", communicates && exposed <= comm_t ? 1.0 - exposed / comm_t : kNotMeasured)
      .set_metric("samples_per_s", step > 0 ? batch / step : kNotMeasured)
      .set_metric("samples_per_s_1rank", m.one_rank_throughput)
      .set_metric("scaling_efficiency",
                  std::isfinite(m.one_rank_throughput) && step > 0
                      ? batch / step / (static_cast<double>(ranks) * m.one_rank_throughput)
                      : kNotMeasured)
      .set_metric("loss_first", m.loss_first)
      .set_metric("loss_last", m.loss_last)
      .set_metric("max_rel_diff", m.max_rel_diff)
      .set_metric("wrong", m.wrong < 0 ? kNotMeasured : static_cast<double>(m.wrong));
  for (const auto& [phase, by_rank] :
       {std::pair<const char*, const std::vector<std::vector<double>>*>{"step", &m.step_by_rank},
        {"compute", &m.compute_by_rank},
        {"comm", &m.comm_by_rank}}) {
    r.phases.push_back(reduce_phase(phase, *by_rank, RankAverage::max).stats);
  }
  for (std::size_t k = 0; k < ranks; ++k) {
    RankFigures f;
    f.rank = static_cast<int>(k);
    f.host = m.hosts[k];
    f.figures = {{"step_ms", percentile(m.step_by_rank[k], 50) * kMilli},
                 {"compute_ms", percentile(m.compute_by_rank[k], 50) * kMilli}};
    r.ranks.push_back(std::move(f));
  }
  return r;
}

}  // namespace distbench::train
