#include "history/history_check.hpp"

#include "compare/case_filter.hpp"
#include "compare/case_pool.hpp"
#include "core/error.hpp"
#include "core/report/text.hpp"
#include "history/series_filter.hpp"
#include "history/series_values.hpp"
#include "history/series_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace distbench::history {
namespace {

void validate_check_options(const CheckOptions& o) {
  if (o.detector.min_segment < 2) {
    throw usage_error(fmt::format("--min-segment {}: at least 2 runs (one run is an outlier, not a segment)",
                                  o.detector.min_segment));
  }
  if (o.window < o.detector.min_segment) {
    throw usage_error(
        fmt::format("--window {}: at least --min-segment ({}) runs: a change point is found only once "
                    "that many runs followed it",
                    o.window, o.detector.min_segment));
  }
  if (!(o.detector.max_p > 0 && o.detector.max_p < 1)) {
    throw usage_error(fmt::format("--max-p {:g}: a probability between 0 and 1, e.g. 0.001", o.detector.max_p));
  }
  if (!(o.gate.alpha > 0 && o.gate.alpha < 1)) {
    throw usage_error(fmt::format("--alpha {:g}: a probability between 0 and 1, e.g. 0.01", o.gate.alpha));
  }
  if (!(o.gate.threshold >= 0) || !std::isfinite(o.gate.threshold)) {
    throw usage_error(fmt::format("--threshold {:g}: a relative change of 0 or more, e.g. 0.05", o.gate.threshold));
  }
  if (!(o.gate.floor_us >= 0) || !std::isfinite(o.gate.floor_us)) {
    throw usage_error(fmt::format("--floor {:g}: microseconds, 0 or more", o.gate.floor_us));
  }
}

// The series that pass the filter (series_filter.hpp).
std::vector<const Series*> kept_series(const std::vector<Series>& series, const std::vector<compare::Condition>& f) {
  check_filter_fields(series, f);
  std::vector<const Series*> kept;
  for (const Series& s : series) {
    if (passes(s, f)) kept.push_back(&s);
  }
  return kept;
}

// Each group's newest run: the largest run id among its series' points.
std::map<std::string, std::int64_t> newest_runs(const std::vector<Series>& series) {
  std::map<std::string, std::int64_t> newest;
  for (const Series& s : series) {
    for (const Point& p : s.points) {
      auto [it, fresh] = newest.try_emplace(s.group, p.run);
      if (!fresh) it->second = std::max(it->second, p.run);
    }
  }
  return newest;
}

// Error(wrong_results) when the newest run of a series' group counted wrong elements in it, as compare refuses a run
// that computed wrong results: it measured nothing a verdict may rest on.
void check_newest_correct(const std::vector<const Series*>& kept, const std::map<std::string, std::int64_t>& newest) {
  std::vector<std::string> named;
  for (const Series* s : kept) {
    const auto it = newest.find(s->group);
    for (const Point& p : s->points) {
      if (it == newest.end() || p.run != it->second || !(p.wrong > 0)) continue;  // NaN: not checked
      named.push_back(fmt::format("{} ({}: {:g} wrong)", s->label, run_words(p), p.wrong));
    }
  }
  if (named.empty()) return;
  throw Error(ExitCode::wrong_results,
              fmt::format("the newest run counts wrong elements: {}; a run whose results are wrong measured nothing a "
                          "verdict may rest on: fix the results, then measure again",
                          compare::detail::listed(named, "case")));
}

}  // namespace

namespace {

std::size_t verdict_count(const compare::Comparison& c, compare::Verdict v) {
  return static_cast<std::size_t>(
      std::count_if(c.cases.begin(), c.cases.end(), [&](const compare::CaseComparison& k) { return k.verdict == v; }));
}

// Why nothing could be judged, in the history's words.
std::string nothing_judged(const compare::Comparison& c, bool filtered) {
  using compare::Verdict;
  if (c.cases.empty()) {
    return fmt::format("nothing to check: the history holds no series{}", filtered ? " that passes --filter" : "");
  }
  const auto first = std::find_if(c.cases.begin(), c.cases.end(),
                                  [](const compare::CaseComparison& k) { return k.verdict == Verdict::unknown; });
  const std::string example =
      first == c.cases.end() ? std::string() : fmt::format(" (the first: {}: {})", first->label, first->reason);
  return fmt::format(
      "nothing could be judged: of {}, {} unknown{}, {} not in the newest run, {} new; a series needs {} runs with "
      "the metric to be judged",
      plural(c.cases.size(), "series", "series"), verdict_count(c, Verdict::unknown), example,
      verdict_count(c, Verdict::missing), verdict_count(c, Verdict::added), kMinRuns);
}

// compare's counts, geometric mean and warnings; Error(not_judged) when no series was judged, and not_judged set (in
// the history's words) when series of the history are not in their newest run without allow_missing.
void conclude_history(compare::Comparison& c, bool filtered) {
  using compare::Verdict;
  if (verdict_count(c, Verdict::slower) + verdict_count(c, Verdict::faster) + verdict_count(c, Verdict::same) == 0) {
    throw Error(ExitCode::not_judged, nothing_judged(c, filtered));
  }
  compare::detail::conclude(c, fmt::format("had too few runs to judge (at least {} with the metric, and {} before the "
                                           "newest in its segment when no change point is in the window); the check "
                                           "judges them as the history grows",
                                           kMinRuns, kMinReferenceRuns));
  if (c.not_judged.empty()) return;
  const auto first = std::find_if(c.cases.begin(), c.cases.end(),
                                  [](const compare::CaseComparison& k) { return k.verdict == Verdict::missing; });
  c.not_judged = fmt::format(
      "{} not in the newest run of {} group (first: {}); a case that stopped being measured may be the one that "
      "regressed: measure it, or pass --allow-missing",
      plural(c.missing, "series is", "series are"), c.missing == 1 ? "its" : "their", first->label);
}

}  // namespace

HistoryCheck check_history(const std::vector<Series>& series, const CheckOptions& options) {
  validate_check_options(options);
  const std::vector<const Series*> kept = kept_series(series, options.gate.filter);
  const auto newest = newest_runs(series);
  check_newest_correct(kept, newest);
  HistoryCheck out;
  out.window = options.window;
  out.detector = options.detector;
  compare::Comparison& c = out.comparison;
  c.benchmark = "history";
  c.options = options.gate;
  c.metric_unit = options.gate.metric == compare::CompareMetric::time ? "us" : "GB/s";
  std::set<std::int64_t> runs;
  for (const Series* s : kept) {
    for (const Point& p : s->points) runs.insert(p.run);
    const auto it = newest.find(s->group);
    SeriesJudgement j = judge_series(*s, it == newest.end() ? 0 : it->second, options);
    c.cases.push_back(std::move(j.comparison));
    out.series.push_back(std::move(j.check));
  }
  c.candidate_runs = std::min<std::size_t>(runs.size(), newest.size());
  c.baseline_runs = runs.size() - c.candidate_runs;
  conclude_history(c, !options.gate.filter.empty());
  return out;
}

}  // namespace distbench::history
