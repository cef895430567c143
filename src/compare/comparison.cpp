#include "compare/comparison.hpp"

#include "compare/case_pool.hpp"
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

// The verdict and the rule that decided it. A change is SLOWER (FASTER) only when four rules all hold for it: the
// test is significant, the change passes the threshold, the time per operation moved by more than the floor, and
// every run of one side is beyond every run of the other by the threshold. SAME names the first rule that failed.
void judge(CaseComparison& c, const CompareOptions& o) {
  if (c.base_samples < kMinSamplesToTest || c.cand_samples < kMinSamplesToTest) {
    c.verdict = Verdict::unknown;
    c.reason = fmt::format("too few samples to test: {} and {}, at least {} a side", c.base_samples, c.cand_samples,
                           kMinSamplesToTest);
    return;
  }
  // "worse" is positive when the time grew (bandwidth fell), whatever the metric.
  const double worse = o.metric == CompareMetric::time ? c.change : -c.change;
  const bool slower = worse > 0;
  const double threshold_pct = o.threshold * 100;
  const double moved_us = slower ? c.time_delta_us : -c.time_delta_us;
  const double runs_beyond = slower ? c.worst_case_slowdown : c.worst_case_speedup;
  const std::string change = percent_text(c.change * 100, 1, Sign::always);
  c.verdict = Verdict::same;
  if (!(c.p < o.alpha)) {
    c.reason = fmt::format("not significant: p {} >= {:g}", p_words(c.p), o.alpha);
  } else if (!(std::fabs(worse) > o.threshold)) {
    c.reason = fmt::format("significant, but {} is within the {:g}% threshold", change, threshold_pct);
  } else if (!(moved_us > o.floor_us)) {
    c.reason = fmt::format("{} (p {}), but {:.3g} us is under the {:g} us floor", change, p_words(c.p),
                           std::fabs(c.time_delta_us), o.floor_us);
  } else if (!(runs_beyond > o.threshold)) {
    c.reason = fmt::format(
        "{} (p {}), but the runs overlap: the closest runs of the two sides differ by "
        "{}, within the {:g}% threshold",
        change, p_words(c.p), percent_text((slower ? 1 : -1) * runs_beyond * 100, 1, Sign::always), threshold_pct);
  } else {
    c.verdict = slower ? Verdict::slower : Verdict::faster;
    c.reason = fmt::format(
        "{} beyond the {:g}% threshold (p {} < {:g}, {:.3g} us over the {:g} us floor, "
        "every run of one side beyond every run of the other)",
        change, threshold_pct, p_words(c.p), o.alpha, std::fabs(c.time_delta_us), o.floor_us);
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

// The rank test and the change's interval: the shift of log time (a ratio of times with its interval; bandwidth
// ratios are its inverse).
void test_shift(CaseComparison& c, const CompareOptions& options) {
  c.p = mann_whitney_p(c.base_us, c.cand_us);
  std::vector<double> log_base, log_cand;
  for (double x : c.base_us) log_base.push_back(std::log(x));
  for (double x : c.cand_us) log_cand.push_back(std::log(x));
  const ShiftEstimate s = hodges_lehmann_shift(log_base, log_cand, 1 - options.alpha);
  if (options.metric == CompareMetric::time) {
    c.change_low = std::exp(s.low) - 1;
    c.change_high = std::exp(s.high) - 1;
  } else {
    c.change_low = std::exp(-s.high) - 1;
    c.change_high = std::exp(-s.low) - 1;
  }
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

// Most cases moved the same way by more than the threshold, with one run on a side: the machine, not one case, may
// have changed.
std::optional<std::string> movement_warning(const Movement& m, const Comparison& out) {
  if (m.tested < 4 || std::max(m.up, m.down) * 2 <= m.tested || (out.baseline_runs >= 2 && out.candidate_runs >= 2)) {
    return std::nullopt;
  }
  return fmt::format(
      "{} of {} cases moved {} by more than {:g}% together (geometric mean {:.3f}): a whole run on a busier or quieter "
      "machine looks like this too; with one run a side the gate cannot tell run-to-run noise from a change, so "
      "compare a window of baseline runs with two or more candidate runs (--candidates N), or run both sides "
      "interleaved (--run-baseline, --run-candidate)",
      std::max(m.up, m.down), m.tested, m.up >= m.down ? "up" : "down", out.options.threshold * 100, out.geomean_ratio);
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

  Side base = pool(baselines, options, "baseline");
  Side cand = pool(candidates, options, "candidate run");
  const auto keys = label_keys(base, cand);
  Movement movement;
  for (const std::string& key : cand.order) {
    const Pooled& cp = cand.cases[key];
    CaseComparison c = begin_case(cp, keys);
    const Bandwidth bw = bandwidth_of(*cp.record);
    const double cand_time = median(c.cand_us);
    c.cand = metric_of(options.metric, cand_time, bw);
    Pooled* matched = match_baseline(out, c, cp, base, key);
    if (matched == nullptr) continue;  // NEW
    const double base_time = median(c.base_us);
    c.base = metric_of(options.metric, base_time, bw);
    c.ratio = c.cand / c.base;
    c.change = c.ratio - 1;
    c.time_delta_us = cand_time - base_time;
    run_extremes(*matched, cp, c);
    if (c.base_samples > 0 && c.cand_samples > 0) test_shift(c, options);
    judge(c, options);
    movement.count(c, options);
    out.cases.push_back(std::move(c));
  }
  add_missing_cases(out, base, keys);
  out.geomean_ratio = geometric_mean_ratio(out);
  if (auto warning = movement_warning(movement, out)) out.warnings.push_back(std::move(*warning));
  conclude(out, fmt::format("had fewer than {} samples on a side and could not be tested; run with more samples "
                            "(-n 20)",
                            kMinSamplesToTest));
  return out;
}

}  // namespace distbench::compare
