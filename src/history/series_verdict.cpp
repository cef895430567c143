#include "history/series_verdict.hpp"

#include "compare/case_pool.hpp"
#include "core/report/text.hpp"
#include "history/change_points.hpp"
#include "history/series_values.hpp"
#include "history/shift_tests.hpp"
#include "history/side_change.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace distbench::history {
namespace {

using compare::CaseComparison;
using compare::CompareMetric;
using compare::Verdict;
using compare::detail::p_words;

std::string signed_percent(double v) { return percent_text(v * 100, 1, Sign::always); }

std::string change_words(const SideChange& f) {
  if (!std::isfinite(f.test.low)) return signed_percent(std::expm1(f.test.shift));
  return fmt::format("{} [{}, {}]", signed_percent(std::expm1(f.test.shift)), signed_percent(std::expm1(f.test.low)),
                     signed_percent(std::expm1(f.test.high)));
}

std::string moved_words(const SideChange& f) { return fmt::format("{:.3g}", std::fabs(f.cand_time - f.base_time)); }

// The case's figures from a finding.
void fill_case(CaseComparison& c, const SideChange& f) {
  c.base = f.base;
  c.cand = f.cand;
  c.ratio = std::exp(f.test.shift);
  c.change = std::expm1(f.test.shift);
  c.change_low = std::expm1(f.test.low);
  c.change_high = std::expm1(f.test.high);
  c.p = f.test.p;
  c.time_delta_us = f.cand_time - f.base_time;
  c.base_runs = c.base_samples = f.base_runs;
  c.cand_runs = c.cand_samples = f.cand_runs;
}

// A rule's outcome for one series.
struct Judged {
  SideChange finding;
  GateRule rule = GateRule::not_significant;
  Verdict verdict = Verdict::same;
  std::string reason;
};

}  // namespace

namespace {

// What the rules read: the series, its values, its change points (indices into the values) and the options.
struct SeriesContext {
  const Series& series;
  const SeriesValues& values;
  const std::vector<ChangePoint>& change_points;
  const CheckOptions& options;

  std::size_t size() const { return values.size(); }
  const Point& point(std::size_t position) const { return series.points[values.index[position]]; }
  std::size_t window_from() const { return size() - std::min(size(), options.window); }
};

// (a): the change points whose new segment starts in the window; the newest segment against the one before the first.
std::optional<Judged> window_rule(const SeriesContext& x) {
  const auto& cps = x.change_points;
  const auto first =
      std::find_if(cps.begin(), cps.end(), [&](const ChangePoint& c) { return c.index >= x.window_from(); });
  if (first == cps.end()) return std::nullopt;
  const std::size_t base_from = first == cps.begin() ? 0 : std::prev(first)->index;
  const compare::CompareOptions& o = x.options.gate;
  const double level = x.options.detector.max_p;
  Judged j;
  j.finding = side_change(x.values, base_from, first->index, cps.back().index, x.size(), 1 - o.alpha, o.metric);
  j.rule = gate_rule(j.finding, o, level);
  j.verdict = gate_verdict(j.rule, j.finding, o.metric);
  const std::size_t count = static_cast<std::size_t>(cps.end() - first);
  const std::size_t ago = x.size() - first->index;
  const std::string where = count == 1 ? fmt::format("a change point {} runs ago", ago)
                                       : fmt::format("the first of {} change points in the newest {} runs, {} runs ago",
                                                     count, x.options.window, ago);
  const std::string what = fmt::format("{}{} from {}, {}", change_words(j.finding), count == 1 ? "" : " net",
                                       run_words(x.point(first->index)), where);
  const std::string p = p_words(j.finding.test.p);
  switch (j.rule) {
    case GateRule::not_significant:
      j.reason = fmt::format("{}, but not significant: p {} >= {:g}", what, p, level);
      break;
    case GateRule::within_threshold:
      j.reason = fmt::format("{}: within the {:g}% threshold", what, o.threshold * 100);
      break;
    case GateRule::under_floor:
      j.reason =
          fmt::format("{} (p {}), but {} us is under the {:g} us floor", what, p, moved_words(j.finding), o.floor_us);
      break;
    case GateRule::passed:
      j.reason = fmt::format("{}: beyond the {:g}% threshold (p {} < {:g}, {} us over the {:g} us floor)", what,
                             o.threshold * 100, p, level, moved_words(j.finding), o.floor_us);
      break;
  }
  return j;
}

// The run of [from, newest) at least as far off as the newest run, in the direction it moved (shift: the log change
// the tests found): the newest run alone is judged only when it lies beyond every run of its segment, since on a
// machine with modes (a stretch of runs 20-30 % slower as a whole) the tests would otherwise call every run of the
// slower mode a change. nullopt when none is.
std::optional<std::size_t> run_as_far(const SeriesContext& x, std::size_t from, std::size_t newest, double shift) {
  const double newest_log = x.values.log_value[newest];
  for (std::size_t i = from; i < newest; ++i) {
    const double v = x.values.log_value[i];
    if (shift > 0 ? v >= newest_log : v <= newest_log) return i;
  }
  return std::nullopt;
}

// (b): the newest run alone against the runs of its segment before it, when it lies beyond all of them; nullopt when
// they are too few.
std::optional<Judged> newest_rule(const SeriesContext& x) {
  const std::size_t from = x.change_points.empty() ? 0 : x.change_points.back().index;
  const std::size_t newest = x.size() - 1;
  if (newest - from < kMinReferenceRuns) return std::nullopt;
  const compare::CompareOptions& o = x.options.gate;
  Judged j;
  j.finding = side_change(x.values, from, newest, newest, x.size(), 1 - o.alpha, o.metric);
  j.rule = gate_rule(j.finding, o, o.alpha);
  j.verdict = gate_verdict(j.rule, j.finding, o.metric);
  const std::string against = fmt::format("the {} runs since {}", newest - from, run_words(x.point(from)));
  const std::string quiet = fmt::format("no change point in the newest {} runs; the newest run is {} off {}",
                                        x.options.window, change_words(j.finding), against);
  const std::string p = p_words(j.finding.test.p);
  if (const auto like = run_as_far(x, from, newest, j.finding.test.shift); j.rule == GateRule::passed && like) {
    j.verdict = Verdict::same;  // a machine with modes: one run as far off came before, in the same segment
    j.reason = fmt::format("{} (p {}), but {} was as far off: one run is no change while a run like it came before",
                           quiet, p, run_words(x.point(*like)));
    return j;
  }
  switch (j.rule) {
    case GateRule::not_significant:
      j.reason = fmt::format("{}, not significant: p {} >= {:g}", quiet, p, o.alpha);
      break;
    case GateRule::within_threshold:
      j.reason = fmt::format("{} (p {}), within the {:g}% threshold", quiet, p, o.threshold * 100);
      break;
    case GateRule::under_floor:
      j.reason =
          fmt::format("{} (p {}), but {} us is under the {:g} us floor", quiet, p, moved_words(j.finding), o.floor_us);
      break;
    case GateRule::passed:
      j.reason = fmt::format(
          "the newest run alone: {} against {}: beyond the {:g}% threshold (p {} < {:g}, {} us over the {:g} us floor)",
          change_words(j.finding), against, o.threshold * 100, p, o.alpha, moved_words(j.finding), o.floor_us);
      break;
  }
  return j;
}

}  // namespace

namespace {

// (a) when a change point in the window makes the case SLOWER; else (b) when it does; else (a) when it applies, else
// (b); nullopt when neither applies. The bool: (b) decided.
std::optional<std::pair<Judged, bool>> judged_by_rules(const SeriesContext& x) {
  std::optional<Judged> a = window_rule(x);
  std::optional<Judged> b = newest_rule(x);
  if (a && a->verdict == Verdict::slower) return std::pair{std::move(*a), false};
  if (b && b->verdict == Verdict::slower) return std::pair{std::move(*b), true};
  if (a) return std::pair{std::move(*a), false};
  if (b) return std::pair{std::move(*b), true};
  return std::nullopt;
}

// The change points of the values (indices into them), when the series is long enough to have one.
std::vector<ChangePoint> value_change_points(const SeriesValues& v, const CheckOptions& o) {
  if (v.size() < 2 * o.detector.min_segment) return {};
  return find_change_points(v.log_value, o.detector, 1 - o.gate.alpha);
}

// The verdicts that need no test: MISSING, UNKNOWN for a newest run without the metric or too few runs, NEW.
bool early_verdict(const Series& s, const SeriesValues& v, std::int64_t newest_run, const CheckOptions& o,
                   CaseComparison& c) {
  const auto now = std::find_if(s.points.begin(), s.points.end(), [&](const Point& p) { return p.run == newest_run; });
  const bool valued_now = v.size() > 0 && s.points[v.index.back()].run == newest_run;
  if (v.size() > 0) (valued_now ? c.cand : c.base) = v.value.back();
  if (now == s.points.end()) {
    c.verdict = Verdict::missing;
    c.reason = s.points.empty() ? fmt::format("not in the newest run (run {}); no run measured it", newest_run)
                                : fmt::format("not in the newest run (run {}); last measured in {}", newest_run,
                                              run_words(s.points.back()));
  } else if (!valued_now) {
    c.verdict = Verdict::unknown;
    c.reason = fmt::format("the newest run, {}, has no {} for this case", run_words(*now), name(o.gate.metric));
  } else if (v.size() == 1) {
    c.verdict = Verdict::added;
    c.reason = fmt::format("first measured in the newest run, {}", run_words(*now));
  } else if (v.size() < kMinRuns) {
    c.verdict = Verdict::unknown;
    c.reason = fmt::format("too few runs to judge: {} with {}, at least {}", v.size(), name(o.gate.metric), kMinRuns);
  } else {
    return false;
  }
  c.cand_runs = valued_now ? 1 : 0;
  return true;
}

// The change points as the check reports them: indices into the series' points, with their runs.
std::vector<ChangePoint> in_series(const Series& s, const SeriesValues& v, std::vector<ChangePoint> cps) {
  for (ChangePoint& c : cps) {
    c.index = v.index[c.index];
    c.run = s.points[c.index].run;
  }
  return cps;
}

}  // namespace

SeriesJudgement judge_series(const Series& s, std::int64_t newest_run, const CheckOptions& options) {
  SeriesJudgement j;
  j.comparison.label = s.label;
  j.comparison.params = s.params;
  j.check.key = s.key;
  const SeriesValues v = series_values(s, options.gate.metric);
  const std::vector<ChangePoint> cps = value_change_points(v, options);
  j.check.change_points = in_series(s, v, cps);
  const SeriesContext x{s, v, cps, options};
  j.check.gated_from = v.size() > 0 ? v.index[x.window_from()] : 0;
  if (early_verdict(s, v, newest_run, options, j.comparison)) return j;
  auto judged = judged_by_rules(x);
  if (!judged) {
    const std::size_t from = cps.empty() ? 0 : cps.back().index;
    j.comparison.verdict = Verdict::unknown;
    j.comparison.reason = fmt::format(
        "no change point in the newest {} runs, and too few runs before the newest in its segment to test it: {} "
        "since {}, at least {}",
        options.window, v.size() - 1 - from, run_words(x.point(from)), kMinReferenceRuns);
    j.comparison.cand = v.value.back();
    return j;
  }
  fill_case(j.comparison, judged->first.finding);
  j.comparison.verdict = judged->first.verdict;
  j.comparison.reason = std::move(judged->first.reason);
  j.check.newest_alone = judged->second;
  return j;
}

}  // namespace distbench::history
