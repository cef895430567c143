// Reading a report back (parse_report, declared in json_model.hpp): every value goes through a JsonField, which
// checks its type and range, so that a malformed report is one usage_error naming the field, never a crash, an
// exception out of nlohmann or a conversion that wraps or is undefined.
#include "core/report/json_fields.hpp"
#include "core/report/json_model.hpp"
#include "core/report/nic_rate_json.hpp"
#include "core/report/startup_json.hpp"

#include "core/error.hpp"
#include "core/measure/units.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace distbench {
namespace {

using json = ordered_json;

[[noreturn]] void malformed(const std::string& what) {
  throw usage_error(
      fmt::format("malformed distbench report: {}; pass a JSON report written by distbench --json", what));
}

json parse_json(std::string_view text) {
  std::string problem;
  auto result = parse_json_text(text, problem);
  if (!result) malformed(problem);
  return std::move(*result);
}

double seconds_from(const JsonField& f) { return f.number_or_nan() / kMicro; }

KeyValues key_values_from(const JsonField& f) {
  KeyValues kv;
  for (const auto& [key, value] : f.members()) kv.emplace_back(key, value.text());
  return kv;
}

ParamValue param_from(const JsonField& f) {
  const json& j = f.json();
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_integer())
    return f.integer(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
  if (j.is_number()) return f.number();
  if (j.is_null()) return std::numeric_limits<double>::quiet_NaN();
  f.fail("a string, a number or null");
}

Summary time_summary_from(const JsonField& j) {
  Summary s;
  s.median = seconds_from(j.at("median"));
  s.mean = seconds_from(j.at("mean"));
  s.min = seconds_from(j.at("min"));
  s.max = seconds_from(j.at("max"));
  s.stddev = seconds_from(j.at("stddev"));
  s.p99 = seconds_from(j.at("p99"));
  s.mad = seconds_from(j.at("mad"));
  s.noise = j.at("noise_pct").number_or_nan();
  // Absent in early version 1 reports.
  const auto optional = [&](std::string_view key) {
    const auto f = j.find(key);
    return f ? f->number_or_nan() : 0.0;
  };
  s.median_low = optional("median_ci_low") / kMicro;
  s.median_high = optional("median_ci_high") / kMicro;
  s.median_ci = optional("median_ci_pct");
  s.samples = j.at("samples").count();
  s.outliers = j.at("outliers").count();
  const auto iqm = j.find("iqm");  // absent before the interquartile mean was the headline
  s.iqm = iqm ? iqm->number_or_nan() / kMicro : kNotMeasured;
  return s;
}

RankSpread spread_from(const JsonField& j) {
  return {seconds_from(j.at("min")), seconds_from(j.at("avg")), seconds_from(j.at("max")), seconds_from(j.at("rank0"))};
}

std::vector<MetricSpec> metric_specs_from(const JsonField& a) {
  std::vector<MetricSpec> specs;
  for (const JsonField& m : a.elements()) {
    const auto description = m.find("description");
    specs.push_back({m.at("key").text(), m.at("unit").text(), description ? description->text() : std::string()});
  }
  return specs;
}

std::vector<double> samples_from(const JsonField& a) {
  std::vector<double> samples;
  for (const JsonField& s : a.elements()) samples.push_back(seconds_from(s));
  return samples;
}

// Version 1 (collective sweeps only): each result becomes a collective record, as version 2 writes them.
RecordLayout v1_layout() {
  RecordLayout l;
  l.params = {"collective", "backend", "dtype",  "op",    "placement", "root",
              "bytes",      "count",   "nranks", "group", "groups"};
  l.phases = {"time"};
  l.metrics = {{"time_us", "us", "time per operation as the table shows it (-a over ranks)"},
               {"algbw_gbps", "GB/s", "algorithm bandwidth"},
               {"busbw_gbps", "GB/s", "bus bandwidth"},
               {"wrong", "elements", "wrong elements, summed over ranks; null when not checked"},
               {"faults_per_op", "1/op", "page faults per operation, most over ranks"},
               {"switches_per_op", "1/op", "context switches per operation, most over ranks"}};
  l.rank_figures = {{"minor_faults_per_op", "1/op", ""},
                    {"major_faults_per_op", "1/op", ""},
                    {"voluntary_switches_per_op", "1/op", ""},
                    {"involuntary_switches_per_op", "1/op", ""}};
  return l;
}

Record v1_record(const JsonField& j, const RunInfo& info) {
  Record r;
  r.kind = "collective";
  for (const std::string& key : v1_layout().params) r.set(key, param_from(j.at(key)));
  r.ops_per_sample = j.at("ops_per_sample").int_in(1, INT_MAX);
  r.noise_target_met = j.at("noise_target_met").boolean();
  PhaseStats time{"time", samples_from(j.at("samples_us")), time_summary_from(j.at("time_us")),
                  spread_from(j.at("rank_time_us"))};
  r.phases.push_back(std::move(time));
  r.set_metric("time_us", j.at("time_shown_us").number_or_nan());
  r.set_metric("algbw_gbps", j.at("algbw_gbps").number_or_nan());
  r.set_metric("busbw_gbps", j.at("busbw_gbps").number_or_nan());
  r.set_metric("wrong", j.at("wrong").number_or_nan());
  double faults = kNotMeasured, switches = kNotMeasured;
  if (const auto os = j.find("os_per_op")) {  // absent in early version 1 reports
    const auto minor = os->at("minor_faults").elements();
    const auto major = os->at("major_faults").elements();
    const auto voluntary = os->at("voluntary_switches").elements();
    const auto involuntary = os->at("involuntary_switches").elements();
    if (major.size() != minor.size() || voluntary.size() != minor.size() || involuntary.size() != minor.size())
      os->fail(fmt::format("four arrays of {} ranks each", minor.size()));
    faults = switches = 0;
    for (std::size_t i = 0; i < minor.size(); ++i) {
      RankFigures rank;
      rank.rank = static_cast<int>(std::min<std::size_t>(i, INT_MAX));
      if (i < info.ranks.size()) rank.host = info.ranks[i].host;
      const double values[] = {minor[i].number_or_nan(), major[i].number_or_nan(), voluntary[i].number_or_nan(),
                               involuntary[i].number_or_nan()};
      const auto specs = v1_layout().rank_figures;
      for (std::size_t f = 0; f < specs.size(); ++f) rank.figures.push_back({specs[f].key, values[f]});
      faults = std::max(faults, values[0] + values[1]);
      switches = std::max(switches, values[2] + values[3]);
      r.ranks.push_back(std::move(rank));
    }
  }
  r.set_metric("faults_per_op", faults);
  r.set_metric("switches_per_op", switches);
  r.status = j.at("status").text();
  r.skip_reason = j.at("skip_reason").text_or_empty();
  return r;
}

// Version 4: a record of a large job keeps each per-rank figure summarised over the ranks (core/report/per_rank.hpp).
RankSummary rank_summary_from(const JsonField& j) {
  RankSummary s;
  s.ranks = j.at("ranks").count();
  for (const auto& [key, figure] : j.at("figures").members())
    s.figures.push_back({key, rank_distribution_from(figure)});
  return s;
}

Record record_from(const JsonField& j) {
  Record r;
  r.kind = j.at("kind").text();
  for (const auto& [key, value] : j.at("params").members()) r.set(key, param_from(value));
  r.status = j.at("status").text();
  r.skip_reason = j.at("skip_reason").text_or_empty();
  r.ops_per_sample = j.at("ops_per_sample").int_in(1, INT_MAX);
  r.noise_target_met = j.at("noise_target_met").boolean();
  for (const auto& [key, value] : j.at("metrics").members()) r.set_metric(key, value.number_or_nan());
  for (const JsonField& p : j.at("phases").elements()) {
    r.phases.push_back({p.at("name").text(), samples_from(p.at("samples_us")), time_summary_from(p.at("time_us")),
                        spread_from(p.at("rank_spread_us"))});
  }
  // Either form: every rank's figures, or (version 4) their summary; a record without either is malformed.
  const auto summary = j.find("rank_summary");
  if (summary) r.rank_summary = rank_summary_from(*summary);
  const auto every_rank = summary ? j.find("ranks") : std::optional<JsonField>(j.at("ranks"));
  if (!every_rank) return r;
  for (const JsonField& one : every_rank->elements()) {
    RankFigures rank;
    rank.rank = one.at("rank").int_in(0, INT_MAX);
    rank.host = one.at("host").text();
    for (const auto& [key, value] : one.members()) {
      if (key != "rank" && key != "host") rank.figures.push_back({key, value.number_or_nan()});
    }
    r.ranks.push_back(std::move(rank));
  }
  return r;
}

RunInfo run_info_from(const JsonField& j) {
  RunInfo info;
  const JsonField tool = j.at("tool");
  if (tool.at("name").text() != "distbench") malformed("'tool.name' is not \"distbench\"");
  info.tool_version = tool.at("version").text();
  info.git_sha = tool.at("git_sha").text();
  for (const JsonField& arg : j.at("argv").elements()) info.argv.push_back(arg.text());
  info.start_time = j.at("start_time").text_or_empty();
  info.end_time = j.at("end_time").text_or_empty();
  info.status = j.at("status").text();
  info.error = j.at("error").text_or_empty();
  if (const auto s = j.find("signal"); s && !s->is_null()) info.signal = s->int_in(0, INT_MAX);
  if (const auto f = j.find("failed_step")) info.failed_step = f->text_or_empty();
  if (const auto b = j.find("backend")) info.backend = b->text_or_empty();  // version 1: in "config"
  if (const auto s = j.find("startup")) info.startup = startup_from(*s);    // absent before start-up was timed
  const JsonField env = j.at("environment");
  info.world_size = env.at("world_size").int_in(0, INT_MAX);
  for (const JsonField& r : env.at("ranks").elements()) {
    info.ranks.push_back({r.at("rank").int_in(0, INT_MAX), r.at("host").text(), r.at("local_rank").int_in(0, INT_MAX),
                          r.find("cpus") ? r.at("cpus").text() : std::string()});  // absent in older reports
  }
  info.versions = key_values_from(env.at("versions"));
  info.environment = key_values_from(env.at("variables"));
  if (const auto n = env.find("nic_rates")) info.nic_rates = nic_rates_from(*n);  // absent before they were read
  if (const auto w = j.find("warnings")) {
    for (const JsonField& one : w->elements())
      info.warnings.push_back({one.at("code").text(), one.at("message").text(),
                               one.find("detail") ? one.at("detail").text() : std::string()});  // absent: no detail
  }
  return info;
}

RecordLayout layout_from(const JsonField& j) {
  RecordLayout l;
  for (const JsonField& p : j.at("params").elements()) l.params.push_back(p.text());
  for (const JsonField& p : j.at("phases").elements()) l.phases.push_back(p.text());
  l.metrics = metric_specs_from(j.at("metrics"));
  l.rank_figures = metric_specs_from(j.at("rank_figures"));
  return l;
}

std::vector<std::string> texts_from(const JsonField& a) {
  std::vector<std::string> out;
  for (const JsonField& s : a.elements()) out.push_back(s.text());
  return out;
}

CellFormat cell_format_from(const JsonField& f) {
  const std::string text = f.text();
  for (std::size_t i = 0; i < std::size(kCellFormatNames); ++i) {
    if (kCellFormatNames[i] == text) return static_cast<CellFormat>(i);
  }
  f.fail("the name of a cell format (\"time_us\", \"bandwidth\", ...)");
}

std::vector<ColumnSpec> columns_from(const JsonField& a) {
  std::vector<ColumnSpec> columns;
  for (const JsonField& c : a.elements()) {
    columns.push_back({c.at("key").text(), c.at("title").text(), c.at("unit").text(), c.at("width").int_in(0, 1000),
                       cell_format_from(c.at("format")), c.at("md_title").text(), c.at("detail").boolean(),
                       c.at("phase").text()});
    if (const auto t = c.find("trailing")) columns.back().trailing = t->boolean();  // absent: not trailing
  }
  return columns;
}

// Version 3: the table, its rows, and the words of the views.
void view_from(const JsonField& top, ParsedReport& report) {
  report.facts = texts_from(top.at("facts"));
  const JsonField t = top.at("table");
  report.table.key_columns = columns_from(t.at("key_columns"));
  report.table.split_key = t.at("split_key").text_or_empty();
  report.table.split_values = texts_from(t.at("split_values"));
  report.table.value_columns = columns_from(t.at("value_columns"));
  report.table.nccl_tests_layout = t.at("nccl_tests_layout").boolean();
  // Rows that do not hold the records there are (a report whose records a tool removed or added) are dropped: its
  // views then show a record per row.
  std::size_t held = 0;
  bool fit = true;
  for (const JsonField& one : t.at("rows").elements()) {
    const std::size_t n = one.count();
    fit = fit && n <= report.records.size() - held;
    if (fit) held += n;
    report.rows.push_back(n);
  }
  if (!fit || held != report.records.size()) report.rows.clear();
  for (const JsonField& item : top.at("summary_items").elements()) {
    const std::string key = item.at("key").text();
    const auto value = top.at("summary").find(key);
    report.summary_items.push_back(
        {key, item.at("label").text(), value ? value->number_or_nan() : kNotMeasured, item.at("text").text()});
  }
  for (const JsonField& s : top.at("sections").elements()) {
    report.sections.push_back({s.at("title").text(), texts_from(s.at("lines"))});
  }
  for (const JsonField& p : top.at("plots").elements()) {
    report.plots.push_back({p.at("metric").text(), p.at("band_phase").text()});
  }
}

// Before version 3 the views chose the plots by the benchmark; a report of then keeps that choice.
std::vector<PlotChoice> plots_before_version_3(const std::string& benchmark) {
  if (benchmark == "collective") return {{"busbw_gbps", ""}, {"time_us", "time"}};
  if (benchmark == "latency") return {{"latency_us", "one_way"}};
  return {};
}

}  // namespace

ParsedReport parse_report(std::string_view text) {
  const json j = parse_json(text);
  if (!j.is_object()) malformed("the top level is not a JSON object");
  const JsonField top(j, "");

  ParsedReport report;
  const auto version = top.at("schema_version")
                           .integer(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
  if (version < 1 || version > kReportSchemaVersion) {
    throw usage_error(
        fmt::format("unsupported report schema_version {}: this distbench reads versions 1 to {}; "
                    "read it with the distbench version that wrote it, or a newer one",
                    version, kReportSchemaVersion));
  }
  report.schema_version = static_cast<int>(version);
  report.info = run_info_from(top);
  const JsonField config = top.at("config");
  if (!config.json().is_object()) config.fail("an object");
  report.config = config.json();
  if (report.schema_version == 1) {
    report.benchmark = "collective";
    const auto text_in_config = [&](std::string_view key) {
      const auto f = config.find(key);
      return f ? f->text() : std::string();
    };
    report.title = text_in_config("collective");
    if (report.info.backend.empty()) report.info.backend = text_in_config("backend");
    report.layout = v1_layout();
    for (const JsonField& result : top.at("results").elements())
      report.records.push_back(v1_record(result, report.info));
  } else {
    report.benchmark = top.at("benchmark").text();
    const auto title = top.find("title");
    report.title = title ? title->text() : report.benchmark;
    report.layout = layout_from(top.at("layout"));
    report.summary = top.at("summary").json();
    for (const JsonField& record : top.at("records").elements()) report.records.push_back(record_from(record));
    if (report.schema_version >= 3) view_from(top, report);
  }
  if (report.schema_version < 3) report.plots = plots_before_version_3(report.benchmark);
  return report;
}

}  // namespace distbench
