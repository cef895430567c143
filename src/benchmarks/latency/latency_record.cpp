#include "benchmarks/latency/latency_record.hpp"

#include "core/measure/phase_stats.hpp"
#include "core/measure/units.hpp"
#include "core/report/summary_items.hpp"
#include "core/report/text.hpp"

#include <fmt/format.h>

namespace distbench::latency {
namespace {

// A latency record with its parameters and nothing measured yet.
Record latency_case(std::uint64_t bytes, const std::string& backend, std::size_t pairs) {
  Record r;
  r.kind = "latency";
  r.set("backend", backend)
      .set("bytes", static_cast<std::int64_t>(bytes))
      .set("pairs", static_cast<std::int64_t>(pairs));
  return r;
}

}  // namespace

RecordLayout latency_record_layout() {
  RecordLayout l;
  l.params = {"backend", "bytes", "pairs"};
  l.phases = {"one_way"};
  for (const MetricColumn& m : metrics::all) l.metrics.push_back(m.spec());
  l.rank_figures = {{metrics::latency.key, metrics::latency.unit, "this rank's mean one-way time"},
                    {"peer", "rank", "the other rank of its pair"}};
  return l;
}

TableLayout latency_table() {
  TableLayout t;
  t.key_columns = {{"bytes", "size", "(B)", 12, CellFormat::integer, "size (B)"},
                   {"pairs", "pairs", "", 5, CellFormat::integer, "pairs"}};
  for (const MetricColumn& m : metrics::all) t.value_columns.push_back(m.column());
  return t;
}

std::vector<SummaryItem> latency_summary(const std::vector<Record>& records) {
  const Record* smallest = nullptr;
  for (const Record& r : records) {
    if (r.ok() && smallest == nullptr) smallest = &r;
  }
  std::vector<SummaryItem> items;
  if (smallest != nullptr) {
    // the interquartile mean of the samples, the collectives' headline: one preempted sample moves a mean, not it
    // (OSU's mean stays in the latency column)
    const PhaseStats* one_way = smallest->phase("one_way");
    const double us = one_way != nullptr ? one_way->summary.iqm * kMicro : kNotMeasured;
    items.push_back({"smallest_latency_us", "Latency of the smallest message", us,
                     fmt::format("{} us ({} B, interquartile mean)", time_text(us), smallest->param_text("bytes"))});
  } else {
    items.push_back({"smallest_latency_us", "Latency of the smallest message", kNotMeasured, "N/A (nothing measured)"});
  }
  items.push_back(wrong_item(records, "Wrong elements"));  // the collectives' word (its elements are bytes)
  return items;
}

Record latency_record(std::uint64_t bytes, const std::string& backend, const std::vector<std::vector<double>>& by_rank,
                      int ops_per_sample, bool noise_target_met, std::int64_t wrong,
                      const std::vector<std::string>& hosts) {
  return latency_record(bytes, backend, reduce_phase("one_way", by_rank, RankAverage::avg), ops_per_sample,
                        noise_target_met, wrong, hosts);
}

Record latency_record(std::uint64_t bytes, const std::string& backend, ReducedPhase phase, int ops_per_sample,
                      bool noise_target_met, std::int64_t wrong, const std::vector<std::string>& hosts) {
  Record r = latency_case(bytes, backend, phase.rank_means.size() / 2);
  r.ops_per_sample = ops_per_sample;
  r.noise_target_met = noise_target_met;
  const PhaseStats& p = phase.stats;
  const double latency = p.rank_spread.avg;
  r.set_metric(metrics::latency.key, latency * kMicro)
      .set_metric(metrics::median.key, p.summary.median * kMicro)
      .set_metric(metrics::p99.key, p.summary.p99 * kMicro)
      .set_metric(metrics::slowest.key, p.rank_spread.max * kMicro)
      .set_metric(metrics::bandwidth.key, latency > 0 ? static_cast<double>(bytes) / latency / 1e9 : kNotMeasured)
      .set_metric(metrics::wrong.key, wrong < 0 ? kNotMeasured : static_cast<double>(wrong));
  for (std::size_t i = 0; i < phase.rank_means.size(); ++i) {
    RankFigures f;
    f.rank = static_cast<int>(i);
    if (i < hosts.size()) f.host = hosts[i];
    f.figures = {{metrics::latency.key, phase.rank_means[i] * kMicro}, {"peer", static_cast<double>(i ^ 1U)}};
    r.ranks.push_back(std::move(f));
  }
  r.phases.push_back(std::move(phase.stats));
  return r;
}

}  // namespace distbench::latency
