#include "compare/comparison.hpp"

#include "compare/case_pool.hpp"
#include "compare/distinct_runs.hpp"
#include "compare/rank_tests.hpp"
#include "core/error.hpp"
#include "core/measure/sizes.hpp"
#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace distbench::compare {
using namespace detail;
namespace {

constexpr const char* kNoTest = "no significance test: --threshold-only";

// Why a case cannot be judged (UNKNOWN): no run of a side measured it, or (tested) it was measured in too few runs
// for the rank test of the runs' medians to ever reach p < alpha; nullopt when it can be judged.
std::optional<std::string> untestable(const CaseComparison& c, const CompareOptions& o) {
  const std::string runs = fmt::format("{} and {}", plural(c.base_runs, "baseline run", "baseline runs"),
                                       plural(c.cand_runs, "candidate run", "candidate runs"));
  if (o.threshold_only) {
    if (c.base_runs > 0 && c.cand_runs > 0) return std::nullopt;
    return fmt::format("no samples on a side: measured in {} ({})", runs, kNoTest);
  }
  const double smallest = smallest_rank_sum_p(c.base_runs, c.cand_runs);
  if (smallest < o.alpha) return std::nullopt;
  return fmt::format(
      "too few runs to test: measured in {}, whose smallest possible p is {}; a test of the runs' medians at alpha "
      "{:g} needs {} runs a side",
      runs, p_words(smallest), o.alpha, min_runs_to_test(o.alpha));
}

// The verdict and the rule that decided it. A change is SLOWER (FASTER) only when four rules all hold for it: the
// rank test of the runs' medians is significant (skipped with --threshold-only), the change passes the threshold,
// the time per operation moved by more than the floor, and every run of one side is beyond every run of the other by
// the threshold. SAME names the first rule that failed.
void judge(CaseComparison& c, const CompareOptions& o) {
  if (auto why = untestable(c, o)) {
    c.verdict = Verdict::unknown;
    c.reason = std::move(*why);
    return;
  }
  // "worse" is positive when the time grew (bandwidth fell), whatever the metric.
  const double worse = o.metric == CompareMetric::time ? c.change : -c.change;
  const bool slower = worse > 0;
  const double threshold_pct = o.threshold * 100;
  const double moved_us = slower ? c.time_delta_us : -c.time_delta_us;
  const double runs_beyond = slower ? c.worst_case_slowdown : c.worst_case_speedup;
  const std::string change = percent_text(c.change * 100, 1, Sign::always);
  const std::string over = fmt::format("over {} and {} runs", c.base_runs, c.cand_runs);
  const std::string basis = o.threshold_only ? std::string(kNoTest) : fmt::format("p {} {}", p_words(c.p), over);
  c.verdict = Verdict::same;
  if (!o.threshold_only && !(c.p < o.alpha)) {
    c.reason = fmt::format("not significant: p {} >= {:g} {}", p_words(c.p), o.alpha, over);
  } else if (!(std::fabs(worse) > o.threshold)) {
    c.reason = o.threshold_only ? fmt::format("{} is within the {:g}% threshold ({})", change, threshold_pct, kNoTest)
                                : fmt::format("significant ({}), but {} is within the {:g}% threshold", basis, change,
                                              threshold_pct);
  } else if (!(moved_us > o.floor_us)) {
    c.reason = fmt::format("{} ({}), but {:.3g} us is under the {:g} us floor", change, basis,
                           std::fabs(c.time_delta_us), o.floor_us);
  } else if (!(runs_beyond > o.threshold)) {
    c.reason = fmt::format(
        "{} ({}), but the runs overlap: the closest runs of the two sides differ by {}, within the {:g}% threshold",
        change, basis, percent_text((slower ? 1 : -1) * runs_beyond * 100, 1, Sign::always), threshold_pct);
  } else {
    c.verdict = slower ? Verdict::slower : Verdict::faster;
    c.reason = fmt::format(
        "{} beyond the {:g}% threshold ({}, {:.3g} us over the {:g} us floor, every run of one side beyond every run "
        "of the other)",
        change, threshold_pct,
        o.threshold_only ? std::string(kNoTest) : fmt::format("p {} < {:g} {}", p_words(c.p), o.alpha, over),
        std::fabs(c.time_delta_us), o.floor_us);
  }
}

}  // namespace

std::string_view name(CompareMetric m) {
  switch (m) {
    case CompareMetric::time: return "time";
    case CompareMetric::busbw: return "busbw";
    case CompareMetric::algbw: return "algbw";
  }
  return "time";
}

CompareMetric parse_compare_metric(std::string_view text) {
  for (CompareMetric m : {CompareMetric::time, CompareMetric::busbw, CompareMetric::algbw}) {
    if (text == name(m)) return m;
  }
  throw usage_error(fmt::format("--metric {}: use time, busbw or algbw", text));
}

std::string_view name(Verdict v) {
  switch (v) {
    case Verdict::slower: return "SLOWER";
    case Verdict::faster: return "FASTER";
    case Verdict::same: return "SAME";
    case Verdict::unknown: return "UNKNOWN";
    case Verdict::missing: return "MISSING";
    case Verdict::added: return "NEW";
  }
  return "UNKNOWN";
}

std::string Comparison::summary_line() const {
  std::string line = fmt::format("{} slower, {} faster, {} same, {} unknown, {} missing, {} new", slower, faster, same,
                                 unknown, missing, added);
  if (std::isfinite(geomean_ratio)) {
    line += fmt::format("; geometric mean of {} ratios (candidate / baseline): {}", name(options.metric),
                        fixed_text(geomean_ratio, 4));
  }
  return line;
}

namespace {

// How far apart the runs of each side are, as the ratio of the extreme run medians that the verdict must clear:
// a candidate is SLOWER only when even its fastest run is slower than the slowest baseline run by more than the
// threshold (and FASTER the other way round). With one run a side this is the ratio of the two medians.
void run_extremes(const Pooled& base, const Pooled& cand, CaseComparison& c) {
  const auto [base_lo, base_hi] = std::minmax_element(base.run_medians_us.begin(), base.run_medians_us.end());
  const auto [cand_lo, cand_hi] = std::minmax_element(cand.run_medians_us.begin(), cand.run_medians_us.end());
  if (base_lo == base.run_medians_us.end() || cand_lo == cand.run_medians_us.end()) return;
  c.worst_case_slowdown = *cand_lo / *base_hi - 1;  // > 0: every candidate run slower than every baseline run
  c.worst_case_speedup = *base_lo / *cand_hi - 1;   // > 0: every candidate run faster than every baseline run
  c.base_runs = base.run_medians_us.size();
  c.cand_runs = cand.run_medians_us.size();
}

}  // namespace

Comparison compare_reports(const std::vector<ParsedReport>& baselines, const ParsedReport& candidate,
                           const CompareOptions& options) {
  return compare_reports(baselines, std::vector<ParsedReport>{candidate}, options);
}

namespace {

// Every report against the first candidate: the same benchmark, world and backend (throws usage_error naming which).
void check_all_comparable(const std::vector<ParsedReport>& baselines, const std::vector<ParsedReport>& candidates) {
  if (baselines.empty() || candidates.empty()) {
    throw usage_error("compare needs at least one baseline report and a candidate");
  }
  const ParsedReport& candidate = candidates.front();
  for (std::size_t i = 0; i < baselines.size(); ++i) {
    check_comparable(baselines[i], candidate, fmt::format("baseline {}", i + 1));
  }
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    check_comparable(candidates[i], candidate, fmt::format("candidate run {}", i + 1));
  }
}

// The rank test of the runs' median times and the change's interval: the shift of their logs (a ratio of times with
// its interval; bandwidth ratios are its inverse).
void test_runs(CaseComparison& c, const Pooled& base, const Pooled& cand, const CompareOptions& options) {
  c.p = mann_whitney_p(base.run_medians_us, cand.run_medians_us);
  std::vector<double> log_base, log_cand;
  for (double x : base.run_medians_us) log_base.push_back(std::log(x));
  for (double x : cand.run_medians_us) log_cand.push_back(std::log(x));
  const ShiftEstimate s = hodges_lehmann_shift(log_base, log_cand, 1 - options.alpha);
  if (options.metric == CompareMetric::time) {
    c.change_low = std::exp(s.low) - 1;
    c.change_high = std::exp(s.high) - 1;
  } else {
    c.change_low = std::exp(-s.high) - 1;
    c.change_high = std::exp(-s.low) - 1;
  }
}

// A case's figures from its runs and its verdict: each side's median of its runs' medians, the change, the run
// extremes, and (unless threshold_only, and with runs enough) the test and the change's interval.
void compare_case_runs(CaseComparison& c, const Pooled& base, const Pooled& cand, const CompareOptions& o) {
  const Bandwidth bw = bandwidth_of(*cand.record);
  const double base_time = side_time_us(base, SideTime::median_of_runs);
  const double cand_time = side_time_us(cand, SideTime::median_of_runs);
  c.base = metric_of(o.metric, base_time, bw);
  c.cand = metric_of(o.metric, cand_time, bw);
  c.ratio = c.cand / c.base;
  c.change = c.ratio - 1;
  c.time_delta_us = cand_time - base_time;
  run_extremes(base, cand, c);
  if (!o.threshold_only && smallest_rank_sum_p(c.base_runs, c.cand_runs) < o.alpha) test_runs(c, base, cand, o);
  judge(c, o);
}

// Fails closed before the samples are read when no case could ever be tested at alpha: n baseline runs against m
// candidate runs, fully separated, give p = 2 / C(n + m, n) at best.
void check_enough_runs(std::size_t n, std::size_t m, const CompareOptions& o) {
  if (o.threshold_only || smallest_rank_sum_p(n, m) < o.alpha) return;
  const std::size_t k = min_runs_to_test(o.alpha);
  const std::size_t c = m >= 2 && m < k ? m : std::max<std::size_t>(1, k - 2);  // an example with fewer candidates
  const std::size_t b = min_baseline_runs(c, o.alpha, 1000);
  const std::string example = b > 0 && c < k ? fmt::format(" (or e.g. {} baseline runs against {}: --candidates {})", b,
                                                           plural(c, "candidate run", "candidate runs"), c)
                                             : std::string();
  throw Error(ExitCode::not_judged,
              fmt::format("{} and {} are too few to test at --alpha {:g}: the samples of a run share its machine's "
                          "state, so the gate tests the runs' medians, and a rank test of them needs {} runs a side{}; "
                          "give it more runs, run both sides interleaved (--run-baseline, --run-candidate), or judge "
                          "on the threshold alone, with no test (--threshold-only)",
                          plural(n, "baseline run", "baseline runs"), plural(m, "candidate run", "candidate runs"),
                          o.alpha, k, example));
}

// How many judged cases moved beyond the threshold, each way.
struct Movement {
  std::size_t tested = 0, up = 0, down = 0;

  void count(const CaseComparison& c, const CompareOptions& options) {
    if (c.verdict == Verdict::unknown || !std::isfinite(c.ratio) || c.ratio <= 0) return;
    ++tested;
    const double worse = options.metric == CompareMetric::time ? c.change : -c.change;
    if (worse > options.threshold) ++up;
    if (worse < -options.threshold) ++down;
  }
};

// Most cases moved the same way by more than the threshold, with no test and one run on a side: the machine, not one
// case, may have changed. (With the test, run-to-run noise is what the runs' medians are tested against.)
std::optional<std::string> movement_warning(const Movement& m, const Comparison& out) {
  if (!out.options.threshold_only || m.tested < 4 || std::max(m.up, m.down) * 2 <= m.tested ||
      (out.baseline_runs >= 2 && out.candidate_runs >= 2)) {
    return std::nullopt;
  }
  return fmt::format(
      "{} of {} cases moved {} by more than {:g}% together (geometric mean {:.3f}): a whole run on a busier or quieter "
      "machine looks like this too; with one run a side and no test (--threshold-only) the gate cannot tell "
      "run-to-run noise from a change: give it {} runs a side, or run both sides interleaved (--run-baseline, "
      "--run-candidate)",
      std::max(m.up, m.down), m.tested, m.up >= m.down ? "up" : "down", out.options.threshold * 100, out.geomean_ratio,
      min_runs_to_test(out.options.alpha));
}

}  // namespace

Comparison compare_reports(const std::vector<ParsedReport>& baselines, const std::vector<ParsedReport>& candidates,
                           const CompareOptions& options) {
  check_all_comparable(baselines, candidates);
  Comparison out;
  out.benchmark = candidates.front().benchmark;
  out.options = options;
  out.metric_unit = options.metric == CompareMetric::time ? "us" : "GB/s";
  out.baseline_runs = baselines.size();
  out.candidate_runs = candidates.size();
  // A report that did not complete may lack exactly the cases that regressed (a run that hung, was killed or timed
  // out): the gate fails closed instead of judging what is left.
  check_inputs(baselines, candidates, options, "baseline", "candidate run");
  check_enough_runs(baselines.size(), candidates.size(), options);
  check_distinct_runs(baselines, "baseline");
  check_distinct_runs(candidates, "candidate run");

  Side base = pool(baselines, options, "baseline");
  Side cand = pool(candidates, options, "candidate run");
  const auto keys = label_keys(base, cand);
  Movement movement;
  for (const std::string& key : cand.order) {
    const Pooled& cp = cand.cases[key];
    CaseComparison c = begin_case(cp, keys);
    Pooled* matched = match_baseline(out, c, cp, base, key, SideTime::median_of_runs);
    if (matched == nullptr) continue;  // NEW
    compare_case_runs(c, *matched, cp, options);
    movement.count(c, options);
    out.cases.push_back(std::move(c));
  }
  add_missing_cases(out, base, keys, SideTime::median_of_runs);
  out.geomean_ratio = geometric_mean_ratio(out);
  if (auto warning = movement_warning(movement, out)) out.warnings.push_back(std::move(*warning));
  conclude(out, options.threshold_only
                    ? std::string("had no samples on a side; see each case's reason")
                    : fmt::format("could not be tested; see each case's reason (a test of the runs' medians at alpha "
                                  "{:g} needs {} runs a side)",
                                  options.alpha, min_runs_to_test(options.alpha)));
  return out;
}

}  // namespace distbench::compare
