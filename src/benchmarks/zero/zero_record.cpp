#include "benchmarks/zero/zero_record.hpp"

#include "benchmarks/zero/plan.hpp"
#include "core/measure/phase_stats.hpp"
#include "core/measure/units.hpp"
#include "core/report/summary_items.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace distbench::zero {
namespace {


double max_of(const std::vector<double>& v) {
  double m = kNotMeasured;
  for (double x : v) {
    if (std::isfinite(x) && !(x <= m)) m = x;
  }
  return m;
}

double mean_of(const std::vector<double>& v) {
  double sum = 0;
  std::size_t n = 0;
  for (double x : v) {
    if (!std::isfinite(x)) continue;
    sum += x;
    ++n;
  }
  return n == 0 ? kNotMeasured : sum / static_cast<double>(n);
}

double ratio(double a, double b) { return std::isfinite(a) && std::isfinite(b) && b > 0 ? a / b : kNotMeasured; }

}  // namespace

RecordLayout zero_record_layout() {
  RecordLayout l;
  l.params = {"backend", "stage", "dtype", "params", "layers", "bucket_mb", "zero1_reduce", "ranks"};
  l.phases = {"step", "fwd_gather", "bwd_gather", "reduce", "update", "gather"};
  l.metrics = {
      {"step_ms", "ms", "one step: mean over ranks of each rank's mean"},
      {"reduce_ms", "ms", "gradient reduction (allreduce or reduce-scatter, bucket by bucket; stage 3 layer by layer)"},
      {"update_ms", "ms", "the fused Adam update of the rank's shard"},
      {"gather_ms", "ms",
       "parameter allgathers (stage 3: every layer before the forward and again before the backward)"},
      {"layer_gather_ms", "ms", "stage 3: one layer's allgather (gather_ms / 2 layers)"},
      {"predicted_ms", "ms", "the step's collectives and update, each timed alone in the same run, added up"},
      {"step_vs_predicted", "1", "step_ms / predicted_ms"},
      {"update_gbps", "GB/s",
       "bytes the update moves (read grad, master, m, v; write master, m, v, param) / update time"},
      {"copy_gbps", "GB/s", "the device's copy bandwidth (bytes read + written / time), measured in the same run"},
      {"update_vs_copy", "1", "update_gbps / copy_gbps"},
      {"sent_mb", "MB", "formula: bytes each rank sends per step (ring algorithms, (N-1)/N of each padded segment)"},
      {"net_sent_mb", "MB",
       "measured: bytes the hosts' network interfaces sent per step, per rank (mean over ranks; "
       "null on one host)"},
      {"net_received_mb", "MB", "measured: bytes the interfaces received per step, per rank"},
      {"state_mb", "MB", "formula: model states per rank (parameters, gradients, optimizer state)"},
      {"buffer_mb", "MB",
       "formula: the buffers the step adds (stage 2: one bucket; stage 3: one layer and its "
       "gradients)"},
      {"library_mb", "MB", "the temporary the backend's reductions allocate (MPI: one bucket or layer of gradients)"},
      {"held_mb", "MB", "bytes the step allocated, largest over ranks"},
      {"peak_rss_mb", "MB", "measured: growth of peak resident memory over the stage, largest over ranks"},
      {"peak_vs_predicted", "1", "peak_rss_mb / (state_mb + buffer_mb + library_mb)"},
      {"device_mb", "MB",
       "measured on a GPU: device memory the step's arrays took (the CUDA runtime's free memory before and after "
       "they were made), largest over ranks; null on host memory"},
      {"device_vs_predicted", "1", "device_mb / (state_mb + buffer_mb)"},
      {"device_step_mb", "MB",
       "measured on a GPU: device memory the timed steps added beyond the arrays (the backend's buffers, made at a "
       "collective's first use), largest over ranks"},
      {"padding", "elements", "padding added so that every rank's shard of every segment is equal"},
      {"faults_per_step", "1", "page faults per timed step, the most of any rank (the library's temporaries)"},
      {"wrong", "elements", "elements differing from a single-rank run after --check's steps; null when not checked"}};
  l.rank_figures = {{"step_ms", "ms", "this rank's mean step time"},
                    {"peak_rss_mb", "MB", "growth of this rank's peak resident memory over the stage"},
                    {"net_sent_mb", "MB", "this rank's share of its host's interface bytes sent per step"}};
  return l;
}

TableLayout zero_table(bool both_zero1_forms) {
  TableLayout t;
  t.key_columns = {{"stage", "stage", "", 5, CellFormat::text, "stage"}};
  if (both_zero1_forms) {
    t.key_columns.push_back({"zero1_reduce", "stage 1 by", "", 14, CellFormat::text, "stage 1 reduces by"});
  }
  t.value_columns = {{"step_ms", "step", "(ms)", 9, CellFormat::number, "step (ms)"},
                     {"reduce_ms", "reduce", "(ms)", 9, CellFormat::number, "reduce (ms)"},
                     {"update_ms", "update", "(ms)", 9, CellFormat::number, "update (ms)"},
                     {"gather_ms", "gather", "(ms)", 9, CellFormat::number, "gather (ms)"},
                     {"layer_gather_ms", "layer", "gath(ms)", 9, CellFormat::number, "per-layer gather (ms)"},
                     {"predicted_ms", "predict", "(ms)", 9, CellFormat::number, "predicted (ms)"},
                     {"step_vs_predicted", "ratio", "", 6, CellFormat::number, "step/predicted"},
                     {"update_vs_copy", "upd/cp", "", 6, CellFormat::number, "update/copy bw"},
                     {"sent_mb", "sent", "(MB)", 9, CellFormat::number, "sent, formula (MB)"},
                     {"net_sent_mb", "net tx", "(MB)", 9, CellFormat::number, "net sent (MB)"},
                     {"state_mb", "states", "(MB)", 9, CellFormat::number, "model states, formula (MB)"},
                     {"buffer_mb", "+bufs", "(MB)", 8, CellFormat::number, "+ buffers (MB)"},
                     {"library_mb", "+mpi", "(MB)", 8, CellFormat::number, "+ library (MB)"},
                     {"peak_rss_mb", "peak", "(MB)", 9, CellFormat::number, "peak RSS (MB)"},
                     {"device_mb", "device", "(MB)", 9, CellFormat::number, "device memory (MB)"},
                     {"wrong", "#wrong", "", 6, CellFormat::checked, "#wrong"}};
  return t;
}

std::vector<SummaryItem> zero_summary(const std::vector<Record>& records) {
  std::vector<SummaryItem> items;
  const Record* fastest = nullptr;
  double worst_ratio = kNotMeasured;
  for (const Record& r : records) {
    if (!r.ok()) continue;
    if (fastest == nullptr || r.metric("step_ms") < fastest->metric("step_ms")) fastest = &r;
    const double q = r.metric("step_vs_predicted");
    if (std::isfinite(q) && !(q <= worst_ratio)) worst_ratio = q;
  }
  if (fastest != nullptr) {
    items.push_back(
        {"fastest_stage", "Fastest stage", static_cast<double>(std::stoi(fastest->param_text("stage"))),
         fmt::format("stage {} ({:.4g} ms per step)", fastest->param_text("stage"), fastest->metric("step_ms"))});
  }
  items.push_back({"worst_step_vs_predicted", "Worst step / predicted", worst_ratio,
                   std::isfinite(worst_ratio) ? fmt::format("{:.3f}", worst_ratio) : std::string("N/A")});
  items.push_back(wrong_item(records, "Elements differing from one rank"));
  return items;
}

Record zero_record(const StageResult& s) {
  Record r;
  r.kind = "zero";
  r.set("backend", s.backend)
      .set("stage", std::string(name(s.stage)))
      .set("dtype", s.dtype)
      .set("params", static_cast<std::int64_t>(s.params))
      .set("layers", static_cast<std::int64_t>(s.layers))
      .set("bucket_mb", s.bucket_mb)
      .set("zero1_reduce", s.stage == Stage::s1 ? s.zero1 : std::string("-"))
      .set("ranks", static_cast<std::int64_t>(s.ranks));
  r.ops_per_sample = s.ops_per_sample;
  r.noise_target_met = s.noise_target_met;
  ReducedPhase step = reduce_phase("step", s.step_by_rank, RankAverage::avg);
  const double step_s = step.stats.rank_spread.avg;
  double gather_s = 0, reduce_s = kNotMeasured, update_s = kNotMeasured;
  bool gathers = false;
  std::vector<PhaseStats> phases;
  for (std::size_t p = 0; p < s.phase_names.size(); ++p) {
    ReducedPhase phase = reduce_phase(s.phase_names[p], s.phase_by_rank[p], RankAverage::avg);
    const double mean = phase.stats.rank_spread.avg;
    if (s.phase_names[p] == "reduce") reduce_s = mean;
    if (s.phase_names[p] == "update") update_s = mean;
    if (s.phase_names[p].find("gather") != std::string::npos) {
      gather_s += mean;
      gathers = true;
    }
    phases.push_back(std::move(phase.stats));
  }
  if (!gathers) gather_s = kNotMeasured;
  const double update_gbps = ratio(s.update_bytes, update_s) / 1e9;
  const double state = static_cast<double>(s.state.total()), buffers = static_cast<double>(s.buffers + s.library);
  const double peak = max_of(s.peak_rss_bytes);
  r.set_metric("step_ms", step_s * kMilli)
      .set_metric("reduce_ms", reduce_s * kMilli)
      .set_metric("update_ms", update_s * kMilli)
      .set_metric("gather_ms", gather_s * kMilli)
      .set_metric("layer_gather_ms",
                  s.stage == Stage::s3 ? gather_s * kMilli / (2.0 * static_cast<double>(s.layers)) : kNotMeasured)
      .set_metric("predicted_ms", s.predicted_s * kMilli)
      .set_metric("step_vs_predicted", ratio(step_s, s.predicted_s))
      .set_metric("update_gbps", update_gbps)
      .set_metric("copy_gbps", s.copy_gbps)
      .set_metric("update_vs_copy", ratio(update_gbps, s.copy_gbps))
      .set_metric("sent_mb", static_cast<double>(s.sent) / kMega)
      .set_metric("net_sent_mb", s.network_measured ? mean_of(s.net_sent_bytes) / kMega : kNotMeasured)
      .set_metric("net_received_mb", s.network_measured ? mean_of(s.net_received_bytes) / kMega : kNotMeasured)
      .set_metric("state_mb", state / kMega)
      .set_metric("buffer_mb", static_cast<double>(s.buffers) / kMega)
      .set_metric("library_mb", static_cast<double>(s.library) / kMega)
      .set_metric("held_mb", max_of(s.held_bytes) / kMega)
      .set_metric("peak_rss_mb", peak / kMega)
      .set_metric("peak_vs_predicted", ratio(peak, state + buffers))
      .set_metric("device_mb", max_of(s.device_array_bytes) / kMega)
      .set_metric("device_vs_predicted",
                  ratio(max_of(s.device_array_bytes), state + static_cast<double>(s.buffers)))
      .set_metric("device_step_mb", max_of(s.device_step_bytes) / kMega)
      .set_metric("padding", static_cast<double>(s.padding))
      .set_metric("faults_per_step", s.faults_per_step)
      .set_metric("wrong", s.wrong < 0 ? kNotMeasured : static_cast<double>(s.wrong));
  for (std::size_t i = 0; i < s.ranks; ++i) {
    RankFigures f;
    f.rank = static_cast<int>(i);
    if (i < s.hosts.size()) f.host = s.hosts[i];
    f.figures = {{"step_ms", step.rank_means[i] * kMilli},
                 {"peak_rss_mb", i < s.peak_rss_bytes.size() ? s.peak_rss_bytes[i] / kMega : kNotMeasured},
                 {"net_sent_mb",
                  s.network_measured && i < s.net_sent_bytes.size() ? s.net_sent_bytes[i] / kMega : kNotMeasured}};
    r.ranks.push_back(std::move(f));
  }
  r.phases.push_back(std::move(step.stats));
  for (PhaseStats& p : phases) r.phases.push_back(std::move(p));
  return r;
}

}  // namespace distbench::zero
