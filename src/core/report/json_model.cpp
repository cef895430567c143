#include "core/report/json_model.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace distbench {
namespace {

using json = ordered_json;

constexpr double kMicrosecondsPerSecond = 1e6;

// A double as JSON; NaN and infinities have no JSON form and become null.
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
double number_from(const json& j) { return j.is_null() ? std::numeric_limits<double>::quiet_NaN() : j.get<double>(); }

// A metric: whole values (counts) as JSON integers, the rest as numbers.
json metric_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
    return json(static_cast<std::int64_t>(v));
  return number(v);
}

json microseconds(double seconds) { return number(seconds * kMicrosecondsPerSecond); }
double seconds_from(const json& j) { return number_from(j) / kMicrosecondsPerSecond; }

// Text that may be absent: empty in the model, null in JSON.
json text_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
std::string text_from(const json& j) { return j.is_null() ? std::string() : j.get<std::string>(); }

json key_values(const KeyValues& kv) {
  json j = json::object();
  for (const auto& [k, v] : kv) j[k] = v;
  return j;
}
KeyValues key_values_from(const json& j) {
  KeyValues kv;
  for (const auto& [k, v] : j.items()) kv.emplace_back(k, v.get<std::string>());
  return kv;
}

json param_json(const ParamValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  return number(std::get<double>(v));
}
ParamValue param_from(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number()) return j.get<double>();
  if (j.is_null()) return std::numeric_limits<double>::quiet_NaN();
  throw json::type_error::create(302, "a parameter is a string or a number", &j);
}

json time_summary_json(const Summary& s) {
  json j;
  j["median"] = microseconds(s.median);
  j["mean"] = microseconds(s.mean);
  j["min"] = microseconds(s.min);
  j["max"] = microseconds(s.max);
  j["stddev"] = microseconds(s.stddev);
  j["p99"] = microseconds(s.p99);
  j["mad"] = microseconds(s.mad);
  j["noise_pct"] = number(s.noise);
  j["median_ci_low"] = microseconds(s.median_low);
  j["median_ci_high"] = microseconds(s.median_high);
  j["median_ci_pct"] = number(s.median_ci);
  j["samples"] = s.samples;
  j["outliers"] = s.outliers;
  return j;
}

Summary time_summary_from(const json& j) {
  Summary s;
  s.median = seconds_from(j.at("median"));
  s.mean = seconds_from(j.at("mean"));
  s.min = seconds_from(j.at("min"));
  s.max = seconds_from(j.at("max"));
  s.stddev = seconds_from(j.at("stddev"));
  s.p99 = seconds_from(j.at("p99"));
  s.mad = seconds_from(j.at("mad"));
  s.noise = number_from(j.at("noise_pct"));
  s.median_low = seconds_from(j.value("median_ci_low", json(0.0)));  // absent in early version 1 reports
  s.median_high = seconds_from(j.value("median_ci_high", json(0.0)));
  s.median_ci = number_from(j.value("median_ci_pct", json(0.0)));
  s.samples = j.at("samples").get<std::size_t>();
  s.outliers = j.at("outliers").get<std::size_t>();
  return s;
}

json spread_json(const RankSpread& s) {
  return {{"min", microseconds(s.min)},
          {"avg", microseconds(s.avg)},
          {"max", microseconds(s.max)},
          {"rank0", microseconds(s.rank0)}};
}

RankSpread spread_from(const json& j) {
  return {seconds_from(j.at("min")), seconds_from(j.at("avg")), seconds_from(j.at("max")), seconds_from(j.at("rank0"))};
}

json metric_specs_json(const std::vector<MetricSpec>& specs) {
  json a = json::array();
  for (const MetricSpec& m : specs) a.push_back({{"key", m.key}, {"unit", m.unit}, {"description", m.description}});
  return a;
}

std::vector<MetricSpec> metric_specs_from(const json& a) {
  std::vector<MetricSpec> specs;
  for (const json& m : a) {
    specs.push_back({m.at("key").get<std::string>(), m.at("unit").get<std::string>(), m.value("description", "")});
  }
  return specs;
}

[[noreturn]] void malformed(const std::string& what) {
  throw usage_error(
      fmt::format("malformed distbench report: {}; pass a JSON report written by distbench --json", what));
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

Record v1_record(const json& j, const RunInfo& info) {
  Record r;
  r.kind = "collective";
  for (const std::string& key : v1_layout().params) r.set(key, param_from(j.at(key)));
  r.ops_per_sample = j.at("ops_per_sample").get<int>();
  r.noise_target_met = j.at("noise_target_met").get<bool>();
  PhaseStats time{"time", {}, time_summary_from(j.at("time_us")), spread_from(j.at("rank_time_us"))};
  for (const json& s : j.at("samples_us")) time.samples.push_back(seconds_from(s));
  r.phases.push_back(std::move(time));
  r.set_metric("time_us", number_from(j.at("time_shown_us")));
  r.set_metric("algbw_gbps", number_from(j.at("algbw_gbps")));
  r.set_metric("busbw_gbps", number_from(j.at("busbw_gbps")));
  r.set_metric("wrong", number_from(j.at("wrong")));
  double faults = kNotMeasured, switches = kNotMeasured;
  if (const auto os = j.find("os_per_op"); os != j.end()) {  // absent in early version 1 reports
    const json& minor = os->at("minor_faults");
    faults = switches = 0;
    for (std::size_t i = 0; i < minor.size(); ++i) {
      RankFigures rank;
      rank.rank = static_cast<int>(i);
      if (i < info.ranks.size()) rank.host = info.ranks[i].host;
      const double values[] = {number_from(minor.at(i)), number_from(os->at("major_faults").at(i)),
                               number_from(os->at("voluntary_switches").at(i)),
                               number_from(os->at("involuntary_switches").at(i))};
      const auto specs = v1_layout().rank_figures;
      for (std::size_t f = 0; f < specs.size(); ++f) rank.figures.push_back({specs[f].key, values[f]});
      faults = std::max(faults, values[0] + values[1]);
      switches = std::max(switches, values[2] + values[3]);
      r.ranks.push_back(std::move(rank));
    }
  }
  r.set_metric("faults_per_op", faults);
  r.set_metric("switches_per_op", switches);
  j.at("status").get_to(r.status);
  r.skip_reason = text_from(j.at("skip_reason"));
  return r;
}

}  // namespace

json record_json(const Record& r) {
  json j;
  j["kind"] = r.kind;
  json params = json::object();
  for (const Param& p : r.params) params[p.key] = param_json(p.value);
  j["params"] = std::move(params);
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
    for (double s : p.samples) samples.push_back(microseconds(s));
    phases.push_back({{"name", p.name},
                      {"time_us", time_summary_json(p.summary)},
                      {"rank_spread_us", spread_json(p.rank_spread)},
                      {"samples_us", std::move(samples)}});
  }
  j["phases"] = std::move(phases);
  json ranks = json::array();
  for (const RankFigures& rank : r.ranks) {
    json one = {{"rank", rank.rank}, {"host", rank.host}};
    for (const Metric& f : rank.figures) one[f.key] = metric_number(f.value);
    ranks.push_back(std::move(one));
  }
  j["ranks"] = std::move(ranks);
  return j;
}

Record record_from_json(const json& j) {
  Record r;
  j.at("kind").get_to(r.kind);
  for (const auto& [key, value] : j.at("params").items()) r.set(key, param_from(value));
  j.at("status").get_to(r.status);
  r.skip_reason = text_from(j.at("skip_reason"));
  j.at("ops_per_sample").get_to(r.ops_per_sample);
  j.at("noise_target_met").get_to(r.noise_target_met);
  for (const auto& [key, value] : j.at("metrics").items()) r.set_metric(key, number_from(value));
  for (const json& p : j.at("phases")) {
    PhaseStats phase{
        p.at("name").get<std::string>(), {}, time_summary_from(p.at("time_us")), spread_from(p.at("rank_spread_us"))};
    for (const json& s : p.at("samples_us")) phase.samples.push_back(seconds_from(s));
    r.phases.push_back(std::move(phase));
  }
  for (const json& one : j.at("ranks")) {
    RankFigures rank;
    rank.rank = one.at("rank").get<int>();
    rank.host = one.at("host").get<std::string>();
    for (const auto& [key, value] : one.items()) {
      if (key != "rank" && key != "host") rank.figures.push_back({key, number_from(value)});
    }
    r.ranks.push_back(std::move(rank));
  }
  return r;
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
  j["backend"] = text_or_null(info.backend);
  json ranks = json::array();
  for (const RankInfo& r : info.ranks)
    ranks.push_back({{"rank", r.rank}, {"host", r.host}, {"local_rank", r.local_rank}});
  json env;
  env["world_size"] = info.world_size;
  env["ranks"] = std::move(ranks);
  env["versions"] = key_values(info.versions);
  env["variables"] = key_values(info.environment);
  j["environment"] = std::move(env);
  json warnings = json::array();
  for (const Warning& w : info.warnings) warnings.push_back({{"code", w.code}, {"message", w.message}});
  j["warnings"] = std::move(warnings);
  return j;
}

RunInfo run_info_from_json(const json& j) {
  RunInfo info;
  const json& tool = j.at("tool");
  tool.at("version").get_to(info.tool_version);
  tool.at("git_sha").get_to(info.git_sha);
  j.at("argv").get_to(info.argv);
  info.start_time = text_from(j.at("start_time"));
  info.end_time = text_from(j.at("end_time"));
  j.at("status").get_to(info.status);
  info.error = text_from(j.at("error"));
  if (const auto s = j.find("signal"); s != j.end() && s->is_number_integer()) info.signal = s->get<int>();
  if (const auto b = j.find("backend"); b != j.end()) info.backend = text_from(*b);  // version 1: in "config"
  const json& env = j.at("environment");
  env.at("world_size").get_to(info.world_size);
  for (const json& r : env.at("ranks")) {
    info.ranks.push_back({r.at("rank").get<int>(), r.at("host").get<std::string>(), r.at("local_rank").get<int>()});
  }
  info.versions = key_values_from(env.at("versions"));
  info.environment = key_values_from(env.at("variables"));
  if (const auto w = j.find("warnings"); w != j.end()) {
    for (const json& one : *w)
      info.warnings.push_back({one.at("code").get<std::string>(), one.at("message").get<std::string>()});
  }
  return info;
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

RecordLayout layout_from_json(const json& j) {
  RecordLayout l;
  j.at("params").get_to(l.params);
  j.at("phases").get_to(l.phases);
  l.metrics = metric_specs_from(j.at("metrics"));
  l.rank_figures = metric_specs_from(j.at("rank_figures"));
  return l;
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

json make_report_json(const RunInfo& info, const RunDescription& description, const std::vector<Record>& records) {
  json j = run_info_json(info);
  j["benchmark"] = description.benchmark;
  j["title"] = description.title;
  j["config"] = description.config;
  j["layout"] = layout_json(description.records);
  j["summary"] =
      summary_json(records, description.summarize ? description.summarize(records) : std::vector<SummaryItem>{});
  json all = json::array();
  for (const Record& r : records) all.push_back(record_json(r));
  j["records"] = std::move(all);
  return j;
}

ParsedReport parse_report(std::string_view text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    malformed(fmt::format("not valid JSON ({})", e.what()));
  }
  if (!j.is_object()) malformed("the top level is not a JSON object");
  const auto version = j.find("schema_version");
  if (version == j.end() || !version->is_number_integer()) malformed("no integer 'schema_version'");

  ParsedReport report;
  report.schema_version = version->get<int>();
  if (report.schema_version != 1 && report.schema_version != kReportSchemaVersion) {
    throw usage_error(
        fmt::format("unsupported report schema_version {}: this distbench reads versions 1 and {}; "
                    "read it with the distbench version that wrote it, or a newer one",
                    report.schema_version, kReportSchemaVersion));
  }
  std::string part = "the run's fields";  // where a json::exception came from
  try {
    if (j.at("tool").at("name") != "distbench") malformed("'tool.name' is not \"distbench\"");
    report.info = run_info_from_json(j);
    part = "'config'";
    report.config = j.at("config");
    if (!report.config.is_object()) malformed("'config' is not an object");
    if (report.schema_version == 1) {
      report.benchmark = "collective";
      report.title = report.config.value("collective", "");
      if (report.info.backend.empty()) report.info.backend = report.config.value("backend", "");
      report.layout = v1_layout();
      part = "'results'";
      const json& results = j.at("results");
      if (!results.is_array()) malformed("'results' is not an array");
      for (std::size_t i = 0; i < results.size(); ++i) {
        part = fmt::format("results[{}]", i);
        report.records.push_back(v1_record(results[i], report.info));
      }
    } else {
      part = "'benchmark'";
      j.at("benchmark").get_to(report.benchmark);
      report.title = j.value("title", report.benchmark);
      part = "'layout'";
      report.layout = layout_from_json(j.at("layout"));
      part = "'summary'";
      report.summary = j.at("summary");
      part = "'records'";
      const json& records = j.at("records");
      if (!records.is_array()) malformed("'records' is not an array");
      for (std::size_t i = 0; i < records.size(); ++i) {
        part = fmt::format("records[{}]", i);
        report.records.push_back(record_from_json(records[i]));
      }
    }
  } catch (const json::exception& e) {
    malformed(fmt::format("{}: {}", part, e.what()));
  }
  return report;
}

}  // namespace distbench
