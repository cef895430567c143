#include "compare/paired_comparison.hpp"

#include "compare/case_pool.hpp"
#include "compare/signed_rank.hpp"
#include "core/error.hpp"
#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace distbench::compare {
using namespace detail;
namespace {

// One case's paired evidence: each round's run medians (us), in round order.
struct Rounds {
  std::vector<double> base_us, cand_us;
  std::vector<std::string> absent;  // the runs that lack it: "round 3's candidate run", ...
};

// The verdict of one case from its rounds, and the rule that decided it: SLOWER (FASTER) needs the signed-rank test
// significant, the estimated change beyond the threshold and the time per operation moved by more than the floor.
void judge_rounds(CaseComparison& c, const Rounds& r, const CompareOptions& o) {
  const std::size_t n = r.base_us.size();
  const std::size_t needed = min_pairs_to_test(o.alpha);
  std::vector<double> log_ratio;
  std::size_t cand_slower = 0;
  for (std::size_t i = 0; i < n; ++i) {
    log_ratio.push_back(std::log(r.cand_us[i] / r.base_us[i]));
    c.round_ratios.push_back(r.cand_us[i] / r.base_us[i]);
    if (r.cand_us[i] > r.base_us[i]) ++cand_slower;
  }
  const CentreEstimate centre = hodges_lehmann_centre(log_ratio, 1 - o.alpha);
  const double time_ratio = std::exp(centre.estimate);
  const bool time_metric = o.metric == CompareMetric::time;
  // A bandwidth is bytes over time: its ratio is the inverse of the time's.
  c.ratio = time_metric ? time_ratio : 1 / time_ratio;
  c.change = c.ratio - 1;
  c.change_low = time_metric ? std::exp(centre.low) - 1 : std::exp(-centre.high) - 1;
  c.change_high = time_metric ? std::exp(centre.high) - 1 : std::exp(-centre.low) - 1;
  c.p = signed_rank_p(log_ratio);
  const double base_time = median(r.base_us);
  c.time_delta_us = base_time * (time_ratio - 1);  // the estimated change, in us at the baseline's time
  const std::string rounds_text = fmt::format("{} of {} rounds slower", cand_slower, n);
  c.verdict = Verdict::unknown;
  if (n < needed) {
    c.reason = fmt::format("too few rounds to test: {}; a paired test at alpha {:g} needs {} or more (--rounds)", n,
                           o.alpha, needed);
    return;
  }
  const double worse = time_ratio - 1;  // > 0: the candidate took longer, whatever the metric
  const bool slower = worse > 0;
  const double threshold_pct = o.threshold * 100;
  const std::string change = percent_text(c.change * 100, 1, Sign::always);
  c.verdict = Verdict::same;
  if (!(c.p < o.alpha)) {
    c.reason =
        fmt::format("not significant: p {} >= {:g} over {} paired rounds ({})", p_words(c.p), o.alpha, n, rounds_text);
  } else if (!(std::fabs(worse) > o.threshold)) {
    c.reason = fmt::format("significant over {} paired rounds, but {} is within the {:g}% threshold", n, change,
                           threshold_pct);
  } else if (!(std::fabs(c.time_delta_us) > o.floor_us)) {
    c.reason = fmt::format("{} (p {}), but {:.3g} us is under the {:g} us floor", change, p_words(c.p),
                           std::fabs(c.time_delta_us), o.floor_us);
  } else {
    c.verdict = slower ? Verdict::slower : Verdict::faster;
    c.reason = fmt::format(
        "{} beyond the {:g}% threshold (paired over {} rounds: p {} < {:g}, {}; {:.3g} us "
        "over the {:g} us floor)",
        change, threshold_pct, n, p_words(c.p), o.alpha, rounds_text, std::fabs(c.time_delta_us), o.floor_us);
  }
}

// The runs pair up, a baseline and a candidate a round, each comparable with the first candidate run.
void check_rounds(const std::vector<ParsedReport>& baseline, const std::vector<ParsedReport>& candidate,
                  const CompareOptions& options) {
  if (baseline.empty() || baseline.size() != candidate.size()) {
    throw usage_error(
        fmt::format("an interleaved comparison needs one baseline run and one candidate run a round "
                    "(got {} and {})",
                    baseline.size(), candidate.size()));
  }
  const ParsedReport& first = candidate.front();
  for (std::size_t i = 0; i < candidate.size(); ++i) {
    check_comparable(baseline[i], first, fmt::format("round {}'s baseline run", i + 1));
    check_comparable(candidate[i], first, fmt::format("round {}'s candidate run", i + 1));
  }
  check_inputs(baseline, candidate, options, "baseline run", "candidate run");
}

// Each side's run median of this case in every round, paired by round; the rounds that lack either are absent.
Rounds paired_rounds(const Pooled& bp, const Pooled& cp, std::size_t rounds) {
  std::vector<double> base_of_round(rounds, kNotMeasured), cand_of_round(rounds, kNotMeasured);
  for (std::size_t i = 0; i < bp.median_runs.size(); ++i) base_of_round[bp.median_runs[i]] = bp.run_medians_us[i];
  for (std::size_t i = 0; i < cp.median_runs.size(); ++i) cand_of_round[cp.median_runs[i]] = cp.run_medians_us[i];
  Rounds r;
  for (std::size_t i = 0; i < rounds; ++i) {
    for (const auto& [side, value] : {std::pair{"baseline", base_of_round[i]}, {"candidate", cand_of_round[i]}}) {
      if (!std::isfinite(value)) r.absent.push_back(fmt::format("round {}'s {} run", i + 1, side));
    }
    if (!std::isfinite(base_of_round[i]) || !std::isfinite(cand_of_round[i])) continue;
    r.base_us.push_back(base_of_round[i]);
    r.cand_us.push_back(cand_of_round[i]);
  }
  return r;
}

// A case's figures from its paired rounds, and its verdict: judged, or UNKNOWN when some round lacks it (named in
// `partial`).
void compare_case_rounds(CaseComparison& c, const Rounds& r, const Bandwidth& bw, const CompareOptions& options,
                         std::vector<std::string>& partial) {
  c.base_runs = c.cand_runs = r.base_us.size();
  c.base = metric_of(options.metric, median(r.base_us), bw);
  c.cand = metric_of(options.metric, median(r.cand_us), bw);
  if (r.absent.empty()) {
    judge_rounds(c, r, options);
    return;
  }
  c.verdict = Verdict::unknown;
  c.reason = fmt::format(
      "missing or skipped in {}: a case must be measured in every run of both sides to be "
      "paired, and the round it lacks may be the one that shows a regression",
      listed(r.absent, "run"));
  partial.push_back(fmt::format("{} (not in {})", c.label, listed(r.absent, "run")));
}

// A case that some round lacks fails the gate closed, --allow-missing or not: it was not measured where it may
// have regressed (--allow-missing passes cases the candidate never measured, which are MISSING).
void refuse_partial_cases(Comparison& out, const std::vector<std::string>& partial) {
  if (partial.empty()) return;
  const std::string cases = partial.size() == 1 ? "1 case was" : fmt::format("{} cases were", partial.size());
  const std::string why = fmt::format(
      "{} not measured in every round: {}; measure again (a case skipped in one "
      "round, e.g. by a memory check, may be skipped where it regressed)",
      cases, listed(partial, "case"));
  out.not_judged = out.not_judged.empty() ? why : out.not_judged + "; " + why;
}

}  // namespace

Comparison compare_rounds(const std::vector<ParsedReport>& baseline, const std::vector<ParsedReport>& candidate,
                          const CompareOptions& options) {
  check_rounds(baseline, candidate, options);
  Comparison out;
  out.benchmark = candidate.front().benchmark;
  out.options = options;
  out.metric_unit = options.metric == CompareMetric::time ? "us" : "GB/s";
  out.baseline_runs = baseline.size();
  out.candidate_runs = candidate.size();
  out.rounds = candidate.size();
  Side base = pool(baseline, options, "baseline run");
  Side cand = pool(candidate, options, "candidate run");
  const auto keys = label_keys(base, cand);

  std::vector<std::string> partial;  // the cases some round lacks, each with the runs that lack it
  for (const std::string& key : cand.order) {
    const Pooled& cp = cand.cases[key];
    CaseComparison c = begin_case(cp, keys);
    const Bandwidth bw = bandwidth_of(*cp.record);
    if (match_baseline(out, c, cp, base, key) == nullptr) continue;  // NEW
    compare_case_rounds(c, paired_rounds(base.cases.at(key), cp, candidate.size()), bw, options, partial);
    out.cases.push_back(std::move(c));
  }
  add_missing_cases(out, base, keys);
  conclude(out, "could not be paired or tested; see each case's reason");
  refuse_partial_cases(out, partial);
  return out;
}

}  // namespace distbench::compare
