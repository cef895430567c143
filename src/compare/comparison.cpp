#include "compare/comparison.hpp"

#include "compare/rank_tests.hpp"
#include "core/error.hpp"
#include "core/report/text.hpp"
#include "core/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace distbench {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return kNotMeasured;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A case's identity: every parameter, in order.
std::string case_key(const Record& r) {
  std::string key = r.kind;
  for (const Param& p : r.params) key += fmt::format("|{}={}", p.key, param_text(p.value));
  return key;
}

// The samples a comparison tests: the record's first phase, microseconds per operation.
std::vector<double> time_samples_us(const Record& r) {
  std::vector<double> us;
  if (r.phases.empty()) return us;
  for (double s : r.phases.front().samples) us.push_back(s * 1e6);
  return us;
}

// Bytes moved per operation and the bus factor (busbw / algbw), for the bandwidth metrics.
struct Bandwidth {
  double bytes = kNotMeasured;
  double bus_factor = kNotMeasured;
};

Bandwidth bandwidth_of(const Record& r) {
  Bandwidth b;
  if (const ParamValue* v = r.param("bytes")) {
    if (const auto* i = std::get_if<std::int64_t>(v)) b.bytes = static_cast<double>(*i);
  }
  const double algbw = r.metric("algbw_gbps"), busbw = r.metric("busbw_gbps");
  b.bus_factor = algbw > 0 ? busbw / algbw : kNotMeasured;
  return b;
}

// The metric's value for a time per operation (us).
double metric_of(CompareMetric m, double time_us, const Bandwidth& b) {
  if (m == CompareMetric::time) return time_us;
  const double algbw = b.bytes / (time_us * 1e-6) / 1e9;
  return m == CompareMetric::algbw ? algbw : algbw * b.bus_factor;
}

// The label of each case: the parameters whose values differ between cases (bytes as a size), in layout order.
std::vector<std::string> varying_keys(const std::vector<const Record*>& records) {
  std::vector<std::string> keys;
  if (records.empty()) return keys;
  for (const Param& p : records.front()->params) {
    const std::string first = param_text(p.value);
    const bool varies = std::any_of(records.begin(), records.end(), [&](const Record* r) {
      return r->param_text(p.key) != first;
    });
    if (varies || p.key == "bytes") keys.push_back(p.key);
  }
  // The size first; the element count says nothing more than the size does.
  std::erase(keys, std::string("count"));
  if (auto it = std::find(keys.begin(), keys.end(), "bytes"); it != keys.end()) std::rotate(keys.begin(), it, it + 1);
  return keys;
}

std::string label_of(const Record& r, const std::vector<std::string>& keys) {
  std::string label;
  for (const std::string& key : keys) {
    std::string value = r.param_text(key);
    if (key == "bytes") {
      if (const auto* i = std::get_if<std::int64_t>(r.param(key))) value = format_bytes(static_cast<std::uint64_t>(*i));
    }
    label += (label.empty() ? "" : " ") + value;
  }
  return label.empty() ? std::string("all") : label;
}

void check_comparable(const ParsedReport& base, const ParsedReport& cand, std::size_t index,
                      std::string_view side = "baseline") {
  const std::string which = fmt::format("{} {}", side, index + 1);
  if (base.benchmark != cand.benchmark) {
    throw usage_error(fmt::format("{} is a '{}' report and the candidate a '{}' report; compare reports of the same "
                                  "benchmark",
                                  which, base.benchmark, cand.benchmark));
  }
  if (base.info.world_size != cand.info.world_size) {
    throw usage_error(fmt::format("{} ran on {} ranks and the candidate on {}; compare runs of the same world size",
                                  which, base.info.world_size, cand.info.world_size));
  }
  if (base.info.backend != cand.info.backend) {
    throw usage_error(fmt::format("{} ran on backend '{}' and the candidate on '{}'; compare runs of the same backend",
                                  which, base.info.backend, cand.info.backend));
  }
}

std::string p_words(double p) { return p < 1e-4 ? fmt::format("{:.0e}", p) : fmt::format("{:.4f}", p); }

// The verdict and the rule that decided it. A change is SLOWER (FASTER) only when four rules all hold for it: the
// test is significant, the change passes the threshold, the time per operation moved by more than the floor, and
// every run of one side is beyond every run of the other by the threshold. SAME names the first rule that failed.
void judge(CaseComparison& c, const CompareOptions& o) {
  if (c.base_samples < kMinSamplesToTest || c.cand_samples < kMinSamplesToTest) {
    c.verdict = Verdict::unknown;
    c.reason = fmt::format("too few samples to test ({} and {}; at least {} a side)", c.base_samples, c.cand_samples,
                           kMinSamplesToTest);
    return;
  }
  // "worse" is positive when the time grew (bandwidth fell), whatever the metric.
  const double worse = o.metric == CompareMetric::time ? c.change : -c.change;
  const bool slower = worse > 0;
  const double threshold_pct = o.threshold * 100;
  const double moved_us = slower ? c.time_delta_us : -c.time_delta_us;
  const double runs_beyond = slower ? c.worst_case_slowdown : c.worst_case_speedup;
  c.verdict = Verdict::same;
  if (!(c.p < o.alpha)) {
    c.reason = fmt::format("not significant: p {} >= {:g}", p_words(c.p), o.alpha);
  } else if (!(std::fabs(worse) > o.threshold)) {
    c.reason = fmt::format("significant, but {:+.1f}% is within the {:g}% threshold", c.change * 100, threshold_pct);
  } else if (!(moved_us > o.floor_us)) {
    c.reason = fmt::format("{:+.1f}% (p {}), but {:.3g} us is under the {:g} us floor", c.change * 100,
                           p_words(c.p), std::fabs(c.time_delta_us), o.floor_us);
  } else if (!(runs_beyond > o.threshold)) {
    c.reason = fmt::format("{:+.1f}% (p {}), but the runs overlap: the closest runs of the two sides differ by "
                           "{:+.1f}%, within the {:g}% threshold",
                           c.change * 100, p_words(c.p), (slower ? 1 : -1) * runs_beyond * 100, threshold_pct);
  } else {
    c.verdict = slower ? Verdict::slower : Verdict::faster;
    c.reason = fmt::format("{:+.1f}% beyond the {:g}% threshold (p {} < {:g}, {:.3g} us over the {:g} us floor, "
                           "every run of one side beyond every run of the other)",
                           c.change * 100, threshold_pct, p_words(c.p), o.alpha, std::fabs(c.time_delta_us),
                           o.floor_us);
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
    line += fmt::format("; geometric mean of {} ratios (candidate / baseline): {:.4f}", name(options.metric),
                        geomean_ratio);
  }
  return line;
}

namespace {

// One side of a comparison (the baselines, or the candidate runs): each case's samples pooled over the runs, and
// each run's own median time, in first-seen order.
struct Pooled {
  const Record* record = nullptr;
  std::vector<double> samples_us;
  std::vector<double> run_medians_us;
  bool used = false;
};

struct Side {
  std::map<std::string, Pooled> cases;
  std::vector<std::string> order;
};

// Throws usage_error for a sample a time cannot be (not finite, or not above 0): a damaged or hand-edited report,
// which no statistic may judge (a NaN would stall the rank test, zeros would read as infinitely fast).
void check_samples(const Record& r, const std::vector<double>& us, const std::string& run_name,
                   const std::vector<std::string>& keys) {
  for (std::size_t i = 0; i < us.size(); ++i) {
    if (!(std::isfinite(us[i]) && us[i] > 0)) {
      throw usage_error(fmt::format("{}: case {} has sample {} = {}: not a positive time (null, infinite, zero or "
                                    "negative); the report is damaged: measure it again",
                                    run_name, label_of(r, keys), i + 1, us[i]));
    }
  }
}

Side pool(const std::vector<ParsedReport>& runs, const CompareOptions& options, std::string_view side_name) {
  Side side;
  for (std::size_t run_index = 0; run_index < runs.size(); ++run_index) {
    const ParsedReport& run = runs[run_index];
    const std::string run_name = fmt::format("{} {}", side_name, run_index + 1);
    std::vector<const Record*> all;
    for (const Record& r : run.records) all.push_back(&r);
    const auto keys = varying_keys(all);
    std::set<std::string> seen;  // this run's cases: one record each
    for (const Record& r : run.records) {
      if (!seen.insert(case_key(r)).second) {
        throw usage_error(fmt::format("{}: case {} appears twice; a report holds each case once (was it edited or "
                                      "two reports joined?)",
                                      run_name, label_of(r, keys)));
      }
    }
    for (const Record& r : run.records) {
      if (!r.ok() || !matches(r, options.filter)) continue;
      const std::string key = case_key(r);
      auto [it, fresh] = side.cases.try_emplace(key);
      if (fresh) {
        it->second.record = &r;
        side.order.push_back(key);
      }
      const auto us = time_samples_us(r);
      check_samples(r, us, run_name, keys);
      it->second.samples_us.insert(it->second.samples_us.end(), us.begin(), us.end());
      if (!us.empty()) it->second.run_medians_us.push_back(median(us));
    }
  }
  return side;
}

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

// Throws usage_error for a filter condition on a field that no case of any report has (a misspelt key would
// otherwise keep nothing, or everything, without a word).
void check_filter_fields(const std::vector<Condition>& filter, const std::vector<ParsedReport>& baselines,
                         const std::vector<ParsedReport>& candidates) {
  std::set<std::string> fields;
  for (const auto* runs : {&baselines, &candidates}) {
    for (const ParsedReport& run : *runs) {
      for (const Record& r : run.records) {
        for (const Param& p : r.params) fields.insert(p.key);
      }
    }
  }
  for (const Condition& c : filter) {
    if (fields.count(c.key) > 0) continue;
    std::string known;
    for (const std::string& f : fields) known += (known.empty() ? "" : ", ") + f;
    throw usage_error(fmt::format("--filter: no case has a field '{}'; the fields are {}", c.key,
                                  known.empty() ? "none (the reports hold no case)" : known));
  }
}

// Why no case could be judged: none in common, none left by the filter, or only UNKNOWN ones.
std::string nothing_judged_message(const Comparison& c, const CompareOptions& o) {
  const std::string filtered = o.filter.empty() ? "" : " (after --filter)";
  if (c.cases.empty()) {
    return fmt::format("nothing to compare: neither side has a measured case{}", filtered);
  }
  if (c.unknown > 0) {
    return fmt::format("nothing could be judged: {} of {} with too few samples to test and the rest on one side only "
                       "({} missing, {} new); measure with more samples (-n 20)",
                       c.unknown, plural(c.cases.size(), "case", "cases"), c.missing, c.added);
  }
  return fmt::format("nothing to compare: no case{} is in both the baseline and the candidate ({} only in the "
                     "baseline, {} only in the candidate); compare runs of the same cases",
                     filtered, c.missing, c.added);
}

}  // namespace

Comparison compare_reports(const std::vector<ParsedReport>& baselines, const ParsedReport& candidate,
                           const CompareOptions& options) {
  return compare_reports(baselines, std::vector<ParsedReport>{candidate}, options);
}

Comparison compare_reports(const std::vector<ParsedReport>& baselines, const std::vector<ParsedReport>& candidates,
                           const CompareOptions& options) {
  if (baselines.empty() || candidates.empty()) {
    throw usage_error("compare needs at least one baseline report and a candidate");
  }
  const ParsedReport& candidate = candidates.front();
  for (std::size_t i = 0; i < baselines.size(); ++i) check_comparable(baselines[i], candidate, i);
  for (std::size_t i = 1; i < candidates.size(); ++i) check_comparable(candidates[i], candidate, i, "candidate run");
  Comparison out;
  out.benchmark = candidate.benchmark;
  out.options = options;
  out.metric_unit = options.metric == CompareMetric::time ? "us" : "GB/s";
  out.baseline_runs = baselines.size();
  out.candidate_runs = candidates.size();
  if (options.metric != CompareMetric::time) {
    const auto& metrics = candidate.layout.metrics;
    const bool has = std::any_of(metrics.begin(), metrics.end(), [](const MetricSpec& m) { return m.key == "algbw_gbps"; });
    if (!has) {
      throw usage_error(fmt::format("--metric {}: '{}' reports have no bandwidth; use --metric time", name(options.metric),
                                    candidate.benchmark));
    }
  }
  // A report that did not complete may lack exactly the cases that regressed (a run that hung, was killed or timed
  // out): the gate fails closed instead of judging what is left.
  auto check_complete = [](const std::vector<ParsedReport>& runs, std::string_view side_name) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const ParsedReport& r = runs[i];
      if (r.info.status == "complete") continue;
      throw Error(ExitCode::not_judged,
                  fmt::format("{} {} is {} ({}): a run that did not complete cannot be judged; measure it again",
                              side_name, i + 1, r.info.status, r.info.error.empty() ? "no reason given" : r.info.error));
    }
  };
  check_complete(baselines, "baseline");
  check_complete(candidates, "candidate run");
  check_filter_fields(options.filter, baselines, candidates);

  Side base = pool(baselines, options, "baseline");
  Side cand = pool(candidates, options, "candidate run");
  std::vector<const Record*> shown;  // every case, for the labels
  for (const std::string& key : cand.order) shown.push_back(cand.cases[key].record);
  for (const std::string& key : base.order) shown.push_back(base.cases[key].record);
  const auto keys = varying_keys(shown);

  double log_sum = 0;
  std::size_t tested = 0, moved_up = 0, moved_down = 0;
  const double confidence = 1 - options.alpha;
  for (const std::string& key : cand.order) {
    const Pooled& cp = cand.cases[key];
    const Record& r = *cp.record;
    CaseComparison c;
    c.label = label_of(r, keys);
    c.params = r.params;
    c.cand_us = cp.samples_us;
    c.cand_samples = c.cand_us.size();
    const Bandwidth bw = bandwidth_of(r);
    const double cand_time = median(c.cand_us);
    c.cand = metric_of(options.metric, cand_time, bw);
    auto it = base.cases.find(key);
    if (it == base.cases.end()) {
      c.verdict = Verdict::added;
      c.reason = "not in the baseline";
      out.cases.push_back(std::move(c));
      continue;
    }
    it->second.used = true;
    c.base_us = it->second.samples_us;
    c.base_samples = c.base_us.size();
    const double base_time = median(c.base_us);
    c.base = metric_of(options.metric, base_time, bw);
    c.ratio = c.cand / c.base;
    c.change = c.ratio - 1;
    c.time_delta_us = cand_time - base_time;
    run_extremes(it->second, cp, c);
    if (c.base_samples > 0 && c.cand_samples > 0) {
      c.p = mann_whitney_p(c.base_us, c.cand_us);
      // The shift of log time: a ratio of times with its interval; bandwidth ratios are its inverse.
      std::vector<double> log_base, log_cand;
      for (double x : c.base_us) log_base.push_back(std::log(x));
      for (double x : c.cand_us) log_cand.push_back(std::log(x));
      const ShiftEstimate s = hodges_lehmann_shift(log_base, log_cand, confidence);
      if (options.metric == CompareMetric::time) {
        c.change_low = std::exp(s.low) - 1;
        c.change_high = std::exp(s.high) - 1;
      } else {
        c.change_low = std::exp(-s.high) - 1;
        c.change_high = std::exp(-s.low) - 1;
      }
    }
    judge(c, options);
    if (c.verdict != Verdict::unknown && std::isfinite(c.ratio) && c.ratio > 0) {
      log_sum += std::log(c.ratio);
      ++tested;
      const double worse = options.metric == CompareMetric::time ? c.change : -c.change;
      if (worse > options.threshold) ++moved_up;
      if (worse < -options.threshold) ++moved_down;
    }
    out.cases.push_back(std::move(c));
  }
  for (const std::string& key : base.order) {
    const Pooled& p = base.cases[key];
    if (p.used) continue;
    CaseComparison c;
    c.label = label_of(*p.record, keys);
    c.params = p.record->params;
    c.base_us = p.samples_us;
    c.base_samples = c.base_us.size();
    c.base = metric_of(options.metric, median(c.base_us), bandwidth_of(*p.record));
    c.verdict = Verdict::missing;
    c.reason = "not in the candidate";
    out.cases.push_back(std::move(c));
  }
  for (const CaseComparison& c : out.cases) {
    switch (c.verdict) {
      case Verdict::slower: ++out.slower; break;
      case Verdict::faster: ++out.faster; break;
      case Verdict::same: ++out.same; break;
      case Verdict::unknown: ++out.unknown; break;
      case Verdict::missing: ++out.missing; break;
      case Verdict::added: ++out.added; break;
    }
  }
  if (tested > 0) out.geomean_ratio = std::exp(log_sum / static_cast<double>(tested));
  if (out.unknown > 0) {
    out.warnings.push_back(
        fmt::format("{} fewer than {} samples on a side and could not be tested; run "
                    "with more samples (-n 20)",
                    out.unknown == 1 ? "1 case has" : fmt::format("{} cases have", out.unknown), kMinSamplesToTest));
  }
  // Most cases moved the same way by more than the threshold: the machine, not one case, may have changed.
  if (tested >= 4 && std::max(moved_up, moved_down) * 2 > tested && (out.baseline_runs < 2 || out.candidate_runs < 2)) {
    out.warnings.push_back(fmt::format(
        "{} of {} cases moved {} by more than {:g}% together (geometric mean {:.3f}): a whole run on a busier or quieter "
        "machine looks like this too; with one run a side the gate cannot tell run-to-run noise from a change, so "
        "compare a window of baseline runs with two or more candidate runs (--candidates N)",
        std::max(moved_up, moved_down), tested, moved_up >= moved_down ? "up" : "down", options.threshold * 100,
        out.geomean_ratio));
  }
  if (tested == 0) {
    throw Error(ExitCode::not_judged, nothing_judged_message(out, options));
  }
  if (out.missing > 0 && !options.allow_missing) {
    const auto first = std::find_if(out.cases.begin(), out.cases.end(),
                                    [](const CaseComparison& k) { return k.verdict == Verdict::missing; });
    out.not_judged = fmt::format("{} baseline {} not in the candidate (first: {}); a case that stopped being measured "
                                 "may be the one that regressed: measure it, or pass --allow-missing",
                                 out.missing, out.missing == 1 ? "case is" : "cases are", first->label);
  }
  return out;
}

}  // namespace distbench
