#include "core/report/json_model.hpp"

#include "core/error.hpp"
#include "core/measure/units.hpp"
#include "core/report/nic_rate_json.hpp"
#include "core/report/startup_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace distbench {

ordered_json json_number(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

namespace {

using json = ordered_json;

// A metric: whole values (counts) as JSON integers, the rest as numbers.
json metric_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
    return json(static_cast<std::int64_t>(v));
  return json_number(v);
}

json json_microseconds(double seconds) { return json_number(seconds * kMicro); }

// Text that may be absent: empty in the model, null in JSON.
json text_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json key_values(const KeyValues& kv) {
  json j = json::object();
  for (const auto& [k, v] : kv) j[k] = v;
  return j;
}

json param_json(const ParamValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  return json_number(std::get<double>(v));
}

json time_summary_json(const Summary& s) {
  json j;
  j["median"] = json_microseconds(s.median);
  j["mean"] = json_microseconds(s.mean);
  j["min"] = json_microseconds(s.min);
  j["max"] = json_microseconds(s.max);
  j["stddev"] = json_microseconds(s.stddev);
  j["p99"] = json_microseconds(s.p99);
  j["mad"] = json_microseconds(s.mad);
  j["noise_pct"] = json_number(s.noise);
  j["median_ci_low"] = json_microseconds(s.median_low);
  j["median_ci_high"] = json_microseconds(s.median_high);
  j["median_ci_pct"] = json_number(s.median_ci);
  j["samples"] = s.samples;
  j["outliers"] = s.outliers;
  j["iqm"] = json_microseconds(s.iqm);  // the collectives' headline time (added after the others: keys kept)
  return j;
}

json spread_json(const RankSpread& s) {
  return {{"min", json_microseconds(s.min)},
          {"avg", json_microseconds(s.avg)},
          {"max", json_microseconds(s.max)},
          {"rank0", json_microseconds(s.rank0)}};
}

json rank_summary_json(const RankSummary& s) {
  json figures = json::object();
  for (const FigureSummary& f : s.figures) figures[f.key] = rank_distribution_json(f.over_ranks);
  return {{"ranks", s.ranks}, {"figures", std::move(figures)}};
}

json metric_specs_json(const std::vector<MetricSpec>& specs) {
  json a = json::array();
  for (const MetricSpec& m : specs) a.push_back({{"key", m.key}, {"unit", m.unit}, {"description", m.description}});
  return a;
}

json columns_json(const std::vector<ColumnSpec>& columns) {
  json a = json::array();
  for (const ColumnSpec& c : columns) {
    a.push_back({{"key", c.key},
                 {"title", c.title},
                 {"unit", c.unit},
                 {"width", c.width},
                 {"format", std::string(name(c.format))},
                 {"md_title", c.md_title},
                 {"detail", c.detail},
                 {"phase", c.phase}});
    if (c.trailing) a.back()["trailing"] = true;  // written only where set: earlier reports read the same
  }
  return a;
}

}  // namespace

json params_json(const std::vector<Param>& params) {
  json j = json::object();
  for (const Param& p : params) j[p.key] = param_json(p.value);
  return j;
}

json figure_json(double value) { return metric_number(value); }

json record_json(const Record& r) {
  json j;
  j["kind"] = r.kind;
  j["params"] = params_json(r.params);
  j["status"] = r.status;
  j["skip_reason"] = text_or_null(r.skip_reason);
  j["ops_per_sample"] = r.ops_per_sample;
  j["noise_target_met"] = r.noise_target_met;
  json metrics = json::object();
  for (const Metric& m : r.metrics) metrics[m.key] = metric_number(m.value);
  j["metrics"] = std::move(metrics);
  json phases = json::array();
  for (const PhaseStats& p : r.phases) {
    json samples = json::array();
    for (double s : p.samples) samples.push_back(json_microseconds(s));
    phases.push_back({{"name", p.name},
                      {"time_us", time_summary_json(p.summary)},
                      {"rank_spread_us", spread_json(p.rank_spread)},
                      {"samples_us", std::move(samples)}});
  }
  j["phases"] = std::move(phases);
  // The summary form (core/report/per_rank.hpp) in place of every rank; a record has one or the other.
  if (r.ranks.empty() && !r.rank_summary.empty()) {
    j["rank_summary"] = rank_summary_json(r.rank_summary);
    return j;
  }
  json ranks = json::array();
  for (const RankFigures& rank : r.ranks) {
    json one = {{"rank", rank.rank}, {"host", rank.host}};
    for (const Metric& f : rank.figures) one[f.key] = metric_number(f.value);
    ranks.push_back(std::move(one));
  }
  j["ranks"] = std::move(ranks);
  return j;
}

json warning_json(const Warning& w) {
  json j = {{"code", w.code}, {"message", w.message}};
  if (!w.detail.empty()) j["detail"] = w.detail;
  return j;
}

json run_info_json(const RunInfo& info) {
  json j;
  j["schema_version"] = kReportSchemaVersion;
  j["tool"] = {{"name", "distbench"}, {"version", info.tool_version}, {"git_sha", info.git_sha}};
  j["argv"] = info.argv;
  j["start_time"] = text_or_null(info.start_time);
  j["end_time"] = text_or_null(info.end_time);
  j["status"] = info.status;
  j["error"] = text_or_null(info.error);
  j["signal"] = info.signal > 0 ? json(info.signal) : json(nullptr);
  j["failed_step"] = text_or_null(info.failed_step);
  j["backend"] = text_or_null(info.backend);
  j["startup"] = startup_json(info.startup);
  json ranks = json::array();
  for (const RankInfo& r : info.ranks) {
    json rank = {{"rank", r.rank}, {"host", r.host}, {"local_rank", r.local_rank}};
    if (!r.cpus.empty()) rank["cpus"] = r.cpus;
    ranks.push_back(std::move(rank));
  }
  json env;
  env["world_size"] = info.world_size;
  env["ranks"] = std::move(ranks);
  env["versions"] = key_values(info.versions);
  env["variables"] = key_values(info.environment);
  if (!info.nic_rates.empty()) env["nic_rates"] = nic_rates_json(info.nic_rates);  // absent: not recorded
  j["environment"] = std::move(env);
  json warnings = json::array();
  for (const Warning& w : info.warnings) warnings.push_back(warning_json(w));
  j["warnings"] = std::move(warnings);
  return j;
}

json stopping_json(const StoppingRule& rule) {
  return {{"samples", rule.samples},
          {"max_noise", rule.max_noise},
          {"min_samples", rule.min_samples},
          {"max_time_s", rule.max_time_s}};
}

json layout_json(const RecordLayout& layout) {
  return {{"params", layout.params},
          {"phases", layout.phases},
          {"metrics", metric_specs_json(layout.metrics)},
          {"rank_figures", metric_specs_json(layout.rank_figures)}};
}

json summary_json(const std::vector<Record>& records, const std::vector<SummaryItem>& items) {
  std::size_t measured = 0, skipped = 0, noise_missed = 0;
  for (const Record& r : records) {
    if (!r.ok()) {
      ++skipped;
      continue;
    }
    ++measured;
    if (!r.noise_target_met) ++noise_missed;
  }
  json j;
  j["records"] = records.size();
  j["measured"] = measured;
  j["skipped"] = skipped;
  j["noise_missed"] = noise_missed;
  for (const SummaryItem& item : items) j[item.key] = metric_number(item.value);
  return j;
}

json table_json(const TableLayout& table, const std::vector<std::size_t>& rows) {
  return {{"key_columns", columns_json(table.key_columns)},
          {"split_key", text_or_null(table.split_key)},
          {"split_values", table.split_values},
          {"value_columns", columns_json(table.value_columns)},
          {"nccl_tests_layout", table.nccl_tests_layout},
          {"rows", rows}};
}

json make_report_json(const RunInfo& info, const RunDescription& description, const std::vector<Record>& records,
                      const std::vector<std::size_t>& rows) {
  json j = run_info_json(info);
  j["benchmark"] = description.benchmark;
  j["title"] = description.title;
  j["facts"] = description.facts;
  j["config"] = description.config;
  j["layout"] = layout_json(description.records);
  j["table"] = table_json(description.table, rows.empty() ? std::vector<std::size_t>(records.size(), 1) : rows);
  json plots = json::array();
  for (const PlotChoice& p : description.plots) plots.push_back({{"metric", p.metric}, {"band_phase", p.band_phase}});
  j["plots"] = std::move(plots);
  const std::vector<SummaryItem> items =
      description.summarize ? description.summarize(records) : std::vector<SummaryItem>{};
  j["summary"] = summary_json(records, items);
  json words = json::array();
  for (const SummaryItem& item : items) {
    words.push_back({{"key", item.key}, {"label", item.label}, {"text", item.text}});
  }
  j["summary_items"] = std::move(words);
  json sections = json::array();
  if (description.sections) {
    for (const TextSection& s : description.sections(records)) {
      sections.push_back({{"title", s.title}, {"lines", s.lines}});
    }
  }
  j["sections"] = std::move(sections);
  json all = json::array();
  for (const Record& r : records) all.push_back(record_json(r));
  j["records"] = std::move(all);
  return j;
}

}  // namespace distbench
