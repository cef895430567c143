#include "history/history_text.hpp"

#include "core/report/json_model.hpp"
#include "core/report/text.hpp"
#include "core/sys/quote.hpp"
#include "history/params_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace distbench::history {
namespace {

std::string dumped(const ordered_json& j) {
  return j.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

ordered_json shown_figure(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

ordered_json point_json(const Point& p) {
  return {{"run", p.run},
          {"time_us", shown_figure(p.time_us)},
          {"time_low_us", shown_figure(p.time_low_us)},
          {"time_high_us", shown_figure(p.time_high_us)},
          {"busbw_gbps", shown_figure(p.busbw_gbps)},
          {"algbw_gbps", shown_figure(p.algbw_gbps)},
          {"samples", p.samples},
          {"wrong", shown_figure(p.wrong)}};
}

ordered_json run_json(const RunRow& r) {
  const RunMeta& m = r.meta;
  ordered_json config = ordered_json::parse(m.config, nullptr, false);
  return {{"id", r.id},
          {"time", m.time},
          {"label", m.label},
          {"commit", m.commit},
          {"machine", m.machine},
          {"benchmark", m.benchmark},
          {"backend", m.backend},
          {"world", m.world},
          {"cases", r.cases},
          {"config", config.is_discarded() ? ordered_json(m.config) : config},
          {"source_file", m.source_file},
          {"source_format", m.source_format},
          {"content_hash", m.content_hash}};
}

// "12.3 us [12.1, 12.6]"
std::string time_words(const Point& p) {
  std::string s = time_text(p.time_us) + " us";
  if (std::isfinite(p.time_low_us) && std::isfinite(p.time_high_us)) {
    s += fmt::format(" [{}, {}]", time_text(p.time_low_us), time_text(p.time_high_us));
  }
  return s;
}

std::string history_csv_field(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string history_csv_number(double v) { return std::isfinite(v) ? fmt::format("{:.12g}", v) : std::string(); }

}  // namespace

std::string series_list_text(const std::vector<Series>& series) {
  if (series.empty()) return "no series: the history holds no run (distbench history ingest DB REPORT...)\n";
  std::string out, group;
  std::size_t width = 0;
  for (const Series& s : series) width = std::max(width, escape_text(s.label).size());
  for (const Series& s : series) {
    if (s.group != group) {
      group = s.group;
      out += fmt::format("{}{}\n", out.empty() ? "" : "\n", escape_text(group));
    }
    const Point& newest = s.points.back();
    out += fmt::format("  {:<{}}  {:>10}  newest {} ({})\n", escape_text(s.label), width,
                       plural(s.points.size(), "run", "runs"), time_words(newest), escape_text(newest.run_label));
  }
  return out;
}

std::string series_list_json(const std::vector<Series>& series) {
  ordered_json all = ordered_json::array();
  for (const Series& s : series) {
    all.push_back({{"key", s.key},
                   {"group", s.group},
                   {"label", s.label},
                   {"params", params_json(s.params)},
                   {"runs", s.points.size()},
                   {"newest", s.points.empty() ? ordered_json(nullptr) : point_json(s.points.back())}});
  }
  return dumped(ordered_json{{"series", all}});
}

std::string runs_text(const std::vector<RunRow>& runs) {
  if (runs.empty()) return "no runs\n";
  std::string out =
      fmt::format("{:>6}  {:<20}  {:<24}  {:<12}  {:>6}  {}\n", "id", "time", "label", "commit", "cases", "machine");
  for (const RunRow& r : runs) {
    out += fmt::format("{:>6}  {:<20}  {:<24}  {:<12}  {:>6}  {}\n", r.id, escape_text(r.meta.time),
                       escape_text(r.meta.label), escape_text(r.meta.commit.empty() ? "-" : r.meta.commit), r.cases,
                       escape_text(r.meta.machine));
  }
  return out;
}

std::string runs_json(const std::vector<RunRow>& runs) {
  ordered_json all = ordered_json::array();
  for (const RunRow& r : runs) all.push_back(run_json(r));
  return dumped(ordered_json{{"runs", all}});
}

std::string series_points_text(const std::vector<Series>& series) {
  std::string out;
  for (const Series& s : series) {
    out += fmt::format("{}{}\n  {}\n", out.empty() ? "" : "\n", escape_text(s.label), escape_text(s.group));
    for (const Point& p : s.points) {
      out += fmt::format("  run {:>5}  {:<20}  {:<24}  {:<28}  busbw {} GB/s  samples {}  wrong {}\n", p.run,
                         escape_text(p.time), escape_text(p.run_label), time_words(p), bandwidth_text(p.busbw_gbps),
                         p.samples, std::isfinite(p.wrong) ? fmt::format("{:g}", p.wrong) : std::string("N/A"));
    }
  }
  return out;
}

std::string export_csv(const std::vector<Series>& series, const std::vector<RunRow>& runs) {
  std::map<std::int64_t, const RunRow*> by_id;
  for (const RunRow& r : runs) by_id[r.id] = &r;
  std::string out =
      "run,run_time,run_label,commit,machine,benchmark,backend,world,source_file,source_format,series_key,"
      "series_group,series_label,params,time_us,time_low_us,time_high_us,busbw_gbps,algbw_gbps,samples,wrong\n";
  for (const Series& s : series) {
    const std::string series_fields =
        fmt::format("{},{},{},{}", history_csv_field(s.key), history_csv_field(s.group), history_csv_field(s.label),
                    history_csv_field(params_to_json(s.params)));
    for (const Point& p : s.points) {
      const RunMeta& m = by_id.at(p.run)->meta;
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},", p.run, history_csv_field(m.time),
                         history_csv_field(m.label), history_csv_field(m.commit), history_csv_field(m.machine),
                         history_csv_field(m.benchmark), history_csv_field(m.backend), m.world,
                         history_csv_field(m.source_file), m.source_format, series_fields);
      out += fmt::format("{},{},{},{},{},{},{}\n", history_csv_number(p.time_us), history_csv_number(p.time_low_us),
                         history_csv_number(p.time_high_us), history_csv_number(p.busbw_gbps),
                         history_csv_number(p.algbw_gbps), p.samples, history_csv_number(p.wrong));
    }
  }
  return out;
}

std::string export_json(const std::vector<Series>& series, const std::vector<RunRow>& runs) {
  ordered_json all_runs = ordered_json::array(), all_series = ordered_json::array();
  for (const RunRow& r : runs) all_runs.push_back(run_json(r));
  for (const Series& s : series) {
    ordered_json points = ordered_json::array();
    for (const Point& p : s.points) points.push_back(point_json(p));
    all_series.push_back({{"key", s.key},
                          {"group", s.group},
                          {"label", s.label},
                          {"params", params_json(s.params)},
                          {"points", points}});
  }
  return dumped(ordered_json{{"runs", all_runs}, {"series", all_series}});
}

}  // namespace distbench::history
