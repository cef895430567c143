// The JSON view of a history check: compare's keys (verdicts, reasons, figures, summary) and, per case, its change
// points (index, run, p, change, the segments' means), the window and the runs of its points, so that a tool can score
// the detector from it; the options, the detector's included.
#include "compare/compare_views.hpp"
#include "core/report/json_model.hpp"
#include "history/history_views.hpp"
#include "history/series_verdict.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

namespace distbench::history {
namespace {

using json = nlohmann::ordered_json;

json change_points_json(const SeriesCheck& s, const Series* series) {
  json out = json::array();
  for (const ChangePoint& c : s.change_points) {
    const bool known = series != nullptr && c.index < series->points.size();
    out.push_back({{"index", c.index},
                   {"run", c.run},
                   {"run_label", known ? json(series->points[c.index].run_label) : json(nullptr)},
                   {"p", c.p},
                   {"before", json_number(c.before)},
                   {"after", json_number(c.after)},
                   {"change", json_number(c.change)},
                   {"change_low", json_number(c.change_low)},
                   {"change_high", json_number(c.change_high)}});
  }
  return out;
}

json series_json(const SeriesCheck& s, const Series* series) {
  json runs = json::array();
  if (series != nullptr) {
    for (const Point& p : series->points) runs.push_back(p.run);
  }
  const bool known = series != nullptr && s.gated_from < series->points.size();
  return {
      {"key", s.key},
      {"group", series != nullptr ? json(series->group) : json(nullptr)},
      {"runs", std::move(runs)},
      {"window",
       {{"from_index", s.gated_from}, {"from_run", known ? json(series->points[s.gated_from].run) : json(nullptr)}}},
      {"newest_alone", s.newest_alone},
      {"change_points", change_points_json(s, series)}};
}

json case_json(const compare::CaseComparison& k) {
  json out = compare::case_figures_json(k);
  out["baseline_runs"] = k.base_runs;
  out["candidate_runs"] = k.cand_runs;
  return out;
}

}  // namespace

std::string history_json(const HistoryCheck& check, const std::vector<Series>& series) {
  const compare::Comparison& c = check.comparison;
  json j;
  j["tool"] = "distbench history check";
  j["metric"] = std::string(name(c.options.metric));
  j["unit"] = c.metric_unit;
  j["threshold"] = c.options.threshold;
  j["floor_us"] = c.options.floor_us;
  j["alpha"] = c.options.alpha;
  j["allow_missing"] = c.options.allow_missing;
  j["window"] = check.window;
  j["detector"] = {{"method", "e-divisive means, Student t-test"},
                   {"max_p", check.detector.max_p},
                   {"min_segment", check.detector.min_segment},
                   {"min_runs", kMinRuns},
                   {"min_reference_runs", kMinReferenceRuns}};
  j["regression"] = c.regressed();
  j["verdict"] = outcome_word(c);
  j["not_judged"] = c.not_judged.empty() ? json(nullptr) : json(c.not_judged);
  j["summary"] = compare::verdict_counts_json(c);
  j["warnings"] = c.warnings;
  json cases = json::array();
  const auto of = series_of(check, series);
  for (std::size_t i = 0; i < c.cases.size(); ++i) {
    json one = case_json(c.cases[i]);
    if (i < check.series.size()) one["series"] = series_json(check.series[i], of[i]);
    cases.push_back(std::move(one));
  }
  j["cases"] = std::move(cases);
  return j.dump(2) + "\n";
}

}  // namespace distbench::history
