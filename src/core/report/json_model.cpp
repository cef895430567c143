#include "core/report/json_model.hpp"

#include "core/error.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace distbench {
namespace {

using nlohmann::json;

constexpr double kMicrosecondsPerSecond = 1e6;

// A double as JSON; NaN and infinities have no JSON form and become null.
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
double number_from(const json& j) { return j.is_null() ? std::numeric_limits<double>::quiet_NaN() : j.get<double>(); }

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

template <class E>
json names(const std::vector<E>& values) {
  json a = json::array();
  for (E e : values) a.push_back(std::string(name(e)));
  return a;
}

json summary_json(const Summary& s) {
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

Summary summary_from(const json& j) {
  Summary s;
  s.median = seconds_from(j.at("median"));
  s.mean = seconds_from(j.at("mean"));
  s.min = seconds_from(j.at("min"));
  s.max = seconds_from(j.at("max"));
  s.stddev = seconds_from(j.at("stddev"));
  s.p99 = seconds_from(j.at("p99"));
  s.mad = seconds_from(j.at("mad"));
  s.noise = number_from(j.at("noise_pct"));
  s.median_low = seconds_from(j.value("median_ci_low", json(0.0)));  // absent in reports of earlier versions
  s.median_high = seconds_from(j.value("median_ci_high", json(0.0)));
  s.median_ci = number_from(j.value("median_ci_pct", json(0.0)));
  s.samples = j.at("samples").get<std::size_t>();
  s.outliers = j.at("outliers").get<std::size_t>();
  return s;
}

json spread_json(const RankSpread& s) {
  json j;
  j["min"] = microseconds(s.min);
  j["avg"] = microseconds(s.avg);
  j["max"] = microseconds(s.max);
  j["rank0"] = microseconds(s.rank0);
  return j;
}

RankSpread spread_from(const json& j) {
  RankSpread s;
  s.min = seconds_from(j.at("min"));
  s.avg = seconds_from(j.at("avg"));
  s.max = seconds_from(j.at("max"));
  s.rank0 = seconds_from(j.at("rank0"));
  return s;
}

[[noreturn]] void malformed(const std::string& what) {
  throw usage_error(fmt::format("malformed distbench report: {}; pass a JSON report written by distbench --json", what));
}

}  // namespace

void to_json(json& j, const CaseResult& r) {
  j = json::object();
  j["collective"] = r.collective;
  j["backend"] = r.backend;
  j["dtype"] = r.dtype;
  j["op"] = r.op;
  j["placement"] = r.placement;
  j["root"] = r.root;
  j["bytes"] = r.bytes;
  j["count"] = r.count;
  j["nranks"] = r.nranks;
  j["group"] = r.group;
  j["groups"] = r.groups;
  j["ops_per_sample"] = r.ops_per_sample;
  j["time_us"] = summary_json(r.time);
  j["rank_time_us"] = spread_json(r.rank_time);
  j["time_shown_us"] = microseconds(r.time_shown);
  j["algbw_gbps"] = number(r.algbw);
  j["busbw_gbps"] = number(r.busbw);
  j["wrong"] = r.wrong < 0 ? json(nullptr) : json(r.wrong);
  j["noise_target_met"] = r.noise_target_met;
  json samples = json::array();
  for (double s : r.samples) samples.push_back(microseconds(s));
  j["samples_us"] = std::move(samples);
  json os = json::object();
  const std::pair<const char*, double OsCounters::*> figures[] = {
      {"minor_faults", &OsCounters::minor_faults},
      {"major_faults", &OsCounters::major_faults},
      {"voluntary_switches", &OsCounters::voluntary_switches},
      {"involuntary_switches", &OsCounters::involuntary_switches}};
  for (const auto& [key, member] : figures) {
    json per_rank = json::array();
    for (const OsCounters& c : r.os_per_op) per_rank.push_back(number(c.*member));
    os[key] = std::move(per_rank);
  }
  j["os_per_op"] = std::move(os);
  j["status"] = r.status;
  j["skip_reason"] = text_or_null(r.skip_reason);
}

void from_json(const json& j, CaseResult& r) {
  j.at("collective").get_to(r.collective);
  j.at("backend").get_to(r.backend);
  j.at("dtype").get_to(r.dtype);
  j.at("op").get_to(r.op);
  j.at("placement").get_to(r.placement);
  j.at("root").get_to(r.root);
  j.at("bytes").get_to(r.bytes);
  j.at("count").get_to(r.count);
  j.at("nranks").get_to(r.nranks);
  j.at("group").get_to(r.group);
  j.at("groups").get_to(r.groups);
  j.at("ops_per_sample").get_to(r.ops_per_sample);
  r.time = summary_from(j.at("time_us"));
  r.rank_time = spread_from(j.at("rank_time_us"));
  r.time_shown = seconds_from(j.at("time_shown_us"));
  r.algbw = number_from(j.at("algbw_gbps"));
  r.busbw = number_from(j.at("busbw_gbps"));
  const json& wrong = j.at("wrong");
  r.wrong = wrong.is_null() ? -1 : wrong.get<std::int64_t>();
  j.at("noise_target_met").get_to(r.noise_target_met);
  r.samples.clear();
  for (const json& s : j.at("samples_us")) r.samples.push_back(seconds_from(s));
  r.os_per_op.clear();
  if (const auto os = j.find("os_per_op"); os != j.end()) {  // absent in reports of earlier versions
    const json& minor = os->at("minor_faults");
    r.os_per_op.resize(minor.size());
    for (std::size_t i = 0; i < minor.size(); ++i) {
      r.os_per_op[i] = {number_from(minor.at(i)), number_from(os->at("major_faults").at(i)),
                        number_from(os->at("voluntary_switches").at(i)),
                        number_from(os->at("involuntary_switches").at(i))};
    }
  }
  j.at("status").get_to(r.status);
  r.skip_reason = text_from(j.at("skip_reason"));
}

void to_json(json& j, const RunInfo& info) {
  j = json::object();
  j["schema_version"] = kReportSchemaVersion;
  j["tool"] = {{"name", "distbench"}, {"version", info.tool_version}, {"git_sha", info.git_sha}};
  j["argv"] = info.argv;
  j["start_time"] = text_or_null(info.start_time);
  j["end_time"] = text_or_null(info.end_time);
  j["status"] = info.status;
  j["error"] = text_or_null(info.error);
  json ranks = json::array();
  for (const RankInfo& r : info.ranks) ranks.push_back({{"rank", r.rank}, {"host", r.host}, {"local_rank", r.local_rank}});
  json env;
  env["world_size"] = info.world_size;
  env["ranks"] = std::move(ranks);
  env["versions"] = key_values(info.versions);
  env["variables"] = key_values(info.environment);
  j["environment"] = std::move(env);
}

void from_json(const json& j, RunInfo& info) {
  const json& tool = j.at("tool");
  tool.at("version").get_to(info.tool_version);
  tool.at("git_sha").get_to(info.git_sha);
  j.at("argv").get_to(info.argv);
  info.start_time = text_from(j.at("start_time"));
  info.end_time = text_from(j.at("end_time"));
  j.at("status").get_to(info.status);
  info.error = text_from(j.at("error"));
  const json& env = j.at("environment");
  env.at("world_size").get_to(info.world_size);
  info.ranks.clear();
  for (const json& r : env.at("ranks")) {
    info.ranks.push_back({r.at("rank").get<int>(), r.at("host").get<std::string>(), r.at("local_rank").get<int>()});
  }
  info.versions = key_values_from(env.at("versions"));
  info.environment = key_values_from(env.at("variables"));
}

void to_json(json& j, const SweepPlan& plan) {
  j = json::object();
  j["collective"] = std::string(name(plan.collective));
  j["backend"] = plan.backend;
  j["sizes"] = plan.sizes;
  j["dtypes"] = names(plan.dtypes);
  j["ops"] = names(plan.ops);
  j["placements"] = names(plan.placements);
  j["root"] = plan.root;
  j["group_size"] = plan.group_size;
  j["warmup_iters"] = plan.warmup_iters;
  j["stopping"] = {{"samples", plan.stopping.samples},
                   {"max_noise", plan.stopping.max_noise},
                   {"min_samples", plan.stopping.min_samples},
                   {"max_time_s", plan.stopping.max_time_s}};
  j["check"] = plan.check;
  j["average"] = std::string(name(plan.average));
  j["timeout_s"] = plan.timeout_s;
  j["malloc_reuse"] = plan.malloc_reuse;
  const BackendOptions& o = plan.backend_options;
  j["backend_options"] = {{"gpus_per_process", o.gpus_per_process}, {"device_index", o.device_index},
                          {"agg_iters", o.agg_iters},               {"graph_launches", o.graph_launches},
                          {"blocking", o.blocking},                 {"register_buffers", o.register_buffers}};
}

json make_report_json(const RunInfo& info, const SweepPlan& plan, const std::vector<CaseResult>& results) {
  json j = info;
  j["config"] = plan;
  j["results"] = results;
  return j;
}

ParsedReport parse_report_json(std::string_view text) {
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
  if (report.schema_version != kReportSchemaVersion) {
    throw usage_error(fmt::format("unsupported report schema_version {}: this distbench reads schema_version {}; "
                                  "compare reports written by the same distbench version",
                                  report.schema_version, kReportSchemaVersion));
  }
  std::string part = "the run's fields";  // where a json::exception came from
  try {
    if (j.at("tool").at("name") != "distbench") malformed("'tool.name' is not \"distbench\"");
    report.info = j.get<RunInfo>();
    part = "'config'";
    report.config = j.at("config");
    if (!report.config.is_object()) malformed("'config' is not an object");
    part = "'results'";
    const json& results = j.at("results");
    if (!results.is_array()) malformed("'results' is not an array");
    for (std::size_t i = 0; i < results.size(); ++i) {
      part = fmt::format("results[{}]", i);
      report.results.push_back(results[i].get<CaseResult>());
    }
  } catch (const json::exception& e) {
    malformed(fmt::format("{}: {}", part, e.what()));
  }
  return report;
}

}  // namespace distbench
