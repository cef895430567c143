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

// Mean seconds of the step's phases over the ranks (NaN: the stage has no such phase).
struct StagePhaseMeans {
  double reduce = kNotMeasured, update = kNotMeasured, gather = kNotMeasured;  // gather: every gather phase's
};

// The stage's phases named, in order, into `phases`, and their means.
StagePhaseMeans stage_phases(const StageResult& s, std::vector<PhaseStats>& phases) {
  StagePhaseMeans means;
  double gather_s = 0;
  bool gathers = false;
  for (std::size_t p = 0; p < s.phase_names.size(); ++p) {
    ReducedPhase phase = p < s.phases.size() ? s.phases[p] : ReducedPhase{};
    phase.stats.name = s.phase_names[p];
    const double mean = phase.stats.rank_spread.avg;
    if (s.phase_names[p] == "reduce") means.reduce = mean;
    if (s.phase_names[p] == "update") means.update = mean;
    if (s.phase_names[p].find("gather") != std::string::npos) {
      gather_s += mean;
      gathers = true;
    }
    phases.push_back(std::move(phase.stats));
  }
  if (gathers) means.gather = gather_s;
  return means;
}

void set_time_metrics(Record& r, const StageResult& s, double step_s, const StagePhaseMeans& m) {
  const double update_gbps = ratio(s.update_bytes, m.update) / 1e9;
  r.set_metric(metrics::step.key, step_s * kMilli)
      .set_metric(metrics::reduce.key, m.reduce * kMilli)
      .set_metric(metrics::update.key, m.update * kMilli)
      .set_metric(metrics::gather.key, m.gather * kMilli)
      .set_metric(metrics::layer_gather.key,
                  s.stage == Stage::s3 ? m.gather * kMilli / (2.0 * static_cast<double>(s.layers)) : kNotMeasured)
      .set_metric(metrics::predicted.key, s.predicted_s * kMilli)
      .set_metric(metrics::step_vs_predicted.key, ratio(step_s, s.predicted_s))
      .set_metric(metrics::update_gbps.key, update_gbps)
      .set_metric(metrics::copy_gbps.key, s.copy_gbps)
      .set_metric(metrics::update_vs_copy.key, ratio(update_gbps, s.copy_gbps))
      .set_metric(metrics::sent.key, static_cast<double>(s.sent) / kMega)
      .set_metric(metrics::net_sent.key, s.network_measured ? mean_of(s.net_sent_bytes) / kMega : kNotMeasured)
      .set_metric(metrics::net_received.key, s.network_measured ? mean_of(s.net_received_bytes) / kMega : kNotMeasured);
}

void set_memory_metrics(Record& r, const StageResult& s) {
  const double state = static_cast<double>(s.state.total()), buffers = static_cast<double>(s.buffers + s.library);
  const double peak = max_of(s.peak_rss_bytes);
  r.set_metric(metrics::state.key, state / kMega)
      .set_metric(metrics::buffer.key, static_cast<double>(s.buffers) / kMega)
      .set_metric(metrics::library.key, static_cast<double>(s.library) / kMega)
      .set_metric(metrics::held.key, max_of(s.held_bytes) / kMega)
      .set_metric(metrics::peak_rss.key, peak / kMega)
      .set_metric(metrics::peak_vs_predicted.key, ratio(peak, state + buffers))
      .set_metric(metrics::device.key, max_of(s.device_array_bytes) / kMega)
      .set_metric(metrics::device_vs_predicted.key,
                  ratio(max_of(s.device_array_bytes), state + static_cast<double>(s.buffers)))
      .set_metric(metrics::device_step.key, max_of(s.device_step_bytes) / kMega)
      .set_metric(metrics::padding.key, static_cast<double>(s.padding))
      .set_metric(metrics::faults.key, s.faults_per_step)
      .set_metric(metrics::wrong.key, s.wrong < 0 ? kNotMeasured : static_cast<double>(s.wrong));
}

// Each rank's own figures; `step_means[i]`: rank i's mean step, seconds.
void add_zero_rank_figures(Record& r, const StageResult& s, const std::vector<double>& step_means) {
  for (std::size_t i = 0; i < s.ranks; ++i) {
    RankFigures f;
    f.rank = static_cast<int>(i);
    if (i < s.hosts.size()) f.host = s.hosts[i];
    f.figures = {{"step_ms", i < step_means.size() ? step_means[i] * kMilli : kNotMeasured},
                 {"peak_rss_mb", i < s.peak_rss_bytes.size() ? s.peak_rss_bytes[i] / kMega : kNotMeasured},
                 {"net_sent_mb",
                  s.network_measured && i < s.net_sent_bytes.size() ? s.net_sent_bytes[i] / kMega : kNotMeasured}};
    r.ranks.push_back(std::move(f));
  }
}

}  // namespace

RecordLayout zero_record_layout() {
  RecordLayout l;
  l.params = {"backend", "stage", "dtype", "params", "layers", "bucket_mb", "zero1_reduce", "ranks"};
  l.phases = {"step", "fwd_gather", "bwd_gather", "reduce", "update", "gather"};
  for (const MetricColumn& m : metrics::all) l.metrics.push_back(m.spec());
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
  for (const MetricColumn& m : metrics::all) {
    if (*m.title != '\0') t.value_columns.push_back(m.column());
  }
  return t;
}

std::vector<SummaryItem> zero_summary(const std::vector<Record>& records) {
  std::vector<SummaryItem> items;
  const Record* fastest = nullptr;
  double worst_ratio = kNotMeasured;
  for (const Record& r : records) {
    if (!r.ok()) continue;
    if (fastest == nullptr || r.metric(metrics::step.key) < fastest->metric(metrics::step.key)) fastest = &r;
    const double q = r.metric(metrics::step_vs_predicted.key);
    if (std::isfinite(q) && !(q <= worst_ratio)) worst_ratio = q;
  }
  if (fastest != nullptr) {
    items.push_back({"fastest_stage", "Fastest stage", static_cast<double>(std::stoi(fastest->param_text("stage"))),
                     fmt::format("stage {} ({:.4g} ms per step)", fastest->param_text("stage"),
                                 fastest->metric(metrics::step.key))});
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
  ReducedPhase step = s.step;
  step.stats.name = "step";
  std::vector<PhaseStats> phases;
  const StagePhaseMeans means = stage_phases(s, phases);
  set_time_metrics(r, s, step.stats.rank_spread.avg, means);
  set_memory_metrics(r, s);
  add_zero_rank_figures(r, s, step.rank_means);
  r.phases.push_back(std::move(step.stats));
  for (PhaseStats& p : phases) r.phases.push_back(std::move(p));
  return r;
}

}  // namespace distbench::zero
