#include "compare/case_pool.hpp"

#include "core/error.hpp"
#include "core/measure/sizes.hpp"
#include "core/measure/stats.hpp"
#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace distbench::compare::detail {

double median(std::vector<double> v) {
  if (v.empty()) return kNotMeasured;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Below 0.001 two significant digits, so that a p just under a level never reads as equal to it ("0.00098", not
// "0.0010", against 0.001).
std::string p_words(double p) {
  if (p < 1e-4) return fmt::format("{:.0e}", p);
  return p < 1e-3 ? fmt::format("{:#.2g}", p) : fmt::format("{:.4f}", p);
}

std::string case_key(const Record& r) {
  std::string key = r.kind;
  for (const Param& p : r.params) key += fmt::format("|{}={}", p.key, param_text(p.value));
  return key;
}

std::vector<double> time_samples_us(const Record& r) {
  std::vector<double> us;
  if (r.phases.empty()) return us;
  for (double s : r.phases.front().samples) us.push_back(s * 1e6);
  return us;
}

Bandwidth bandwidth_of(const Record& r) {
  Bandwidth b;
  if (const ParamValue* v = r.param("bytes")) {
    if (const auto* i = std::get_if<std::int64_t>(v)) b.bytes = static_cast<double>(*i);
  }
  const double algbw = r.metric("algbw_gbps"), busbw = r.metric("busbw_gbps");
  b.bus_factor = algbw > 0 ? busbw / algbw : kNotMeasured;
  return b;
}

double metric_of(CompareMetric m, double time_us, const Bandwidth& b) {
  if (m == CompareMetric::time) return time_us;
  const double algbw = b.bytes / (time_us * 1e-6) / 1e9;
  return m == CompareMetric::algbw ? algbw : algbw * b.bus_factor;
}

std::vector<std::string> varying_keys(const std::vector<const Record*>& records) {
  std::vector<std::string> keys;
  if (records.empty()) return keys;
  for (const Param& p : records.front()->params) {
    const std::string first = param_text(p.value);
    const bool varies =
        std::any_of(records.begin(), records.end(), [&](const Record* r) { return r->param_text(p.key) != first; });
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

void check_comparable(const ParsedReport& other, const ParsedReport& cand, std::string_view other_name) {
  if (other.benchmark != cand.benchmark) {
    throw usage_error(
        fmt::format("{} is a '{}' report and the candidate a '{}' report; compare reports of the same "
                    "benchmark",
                    other_name, other.benchmark, cand.benchmark));
  }
  if (other.info.world_size != cand.info.world_size) {
    throw usage_error(fmt::format("{} ran on {} ranks and the candidate on {}; compare runs of the same world size",
                                  other_name, other.info.world_size, cand.info.world_size));
  }
  if (other.info.backend != cand.info.backend) {
    throw usage_error(fmt::format("{} ran on backend '{}' and the candidate on '{}'; compare runs of the same backend",
                                  other_name, other.info.backend, cand.info.backend));
  }
}

namespace {

void check_complete(const std::vector<ParsedReport>& runs, std::string_view side_name) {
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ParsedReport& r = runs[i];
    if (r.info.status == "complete") continue;
    throw Error(ExitCode::not_judged,
                fmt::format("{} {} is {} ({}): a run that did not complete cannot be judged; measure it again",
                            side_name, i + 1, r.info.status, r.info.error.empty() ? "no reason given" : r.info.error));
  }
}

void check_metric(CompareMetric metric, const ParsedReport& report) {
  if (metric == CompareMetric::time) return;
  const auto& metrics = report.layout.metrics;
  const bool has =
      std::any_of(metrics.begin(), metrics.end(), [](const MetricSpec& m) { return m.key == "algbw_gbps"; });
  if (!has) {
    throw usage_error(
        fmt::format("--metric {}: '{}' reports have no bandwidth; use --metric time", name(metric), report.benchmark));
  }
}

void check_filter_fields(const std::vector<Condition>& filter, const std::vector<ParsedReport>& base,
                         const std::vector<ParsedReport>& cand) {
  std::set<std::string> fields;
  for (const auto* runs : {&base, &cand}) {
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

void check_correct(const std::vector<ParsedReport>& runs, const std::vector<Condition>& filter,
                   std::string_view side_name) {
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string wrong = wrong_cases(runs[i], filter);
    if (wrong.empty()) continue;
    throw Error(ExitCode::wrong_results,
                fmt::format("{} {} counts wrong elements: {}; a run whose results are wrong measured nothing a verdict "
                            "may rest on: fix the results, then measure again",
                            side_name, i + 1, wrong));
  }
}

}  // namespace

std::string listed(const std::vector<std::string>& items, std::string_view noun) {
  constexpr std::size_t kNamed = 3;
  const std::size_t named = std::min(items.size(), kNamed);
  std::string text;
  for (std::size_t i = 0; i < named; ++i) {
    text += (i == 0 ? "" : i + 1 == named && named == items.size() ? " and " : ", ") + items[i];
  }
  if (const std::size_t more = items.size() - named; more > 0) {
    text += fmt::format(" and {} more {}{}", more, noun, more == 1 ? "" : "s");
  }
  return text;
}

std::string wrong_cases(const ParsedReport& run, const std::vector<Condition>& filter) {
  std::vector<const Record*> all;
  for (const Record& r : run.records) all.push_back(&r);
  const auto keys = varying_keys(all);
  std::vector<std::string> named;
  for (const Record& r : run.records) {
    const double wrong = r.metric("wrong");
    if (!r.ok() || !matches(r, filter) || !(wrong > 0)) continue;  // NaN: not checked
    named.push_back(fmt::format("{} ({:g} wrong)", label_of(r, keys), wrong));
  }
  return listed(named, "case");
}

void check_inputs(const std::vector<ParsedReport>& base, const std::vector<ParsedReport>& cand,
                  const CompareOptions& options, std::string_view base_name, std::string_view cand_name) {
  check_complete(base, base_name);
  check_complete(cand, cand_name);
  if (!cand.empty()) check_metric(options.metric, cand.front());
  check_filter_fields(options.filter, base, cand);
  check_correct(base, options.filter, base_name);
  check_correct(cand, options.filter, cand_name);
}

namespace {

RunFigure run_figure(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  const MedianInterval interval = median_interval_sorted(us);
  return {median(us), interval.low, interval.high, us.size()};
}

// Throws usage_error for a sample a time cannot be (not finite, or not above 0): a damaged or hand-edited report,
// which no statistic may judge (a NaN would stall the rank test, zeros would read as infinitely fast).
void check_samples(const Record& r, const std::vector<double>& us, const std::string& run_name,
                   const std::vector<std::string>& keys) {
  for (std::size_t i = 0; i < us.size(); ++i) {
    if (!(std::isfinite(us[i]) && us[i] > 0)) {
      throw usage_error(
          fmt::format("{}: case {} has sample {} = {}: not a positive time (null, infinite, zero or "
                      "negative); the report is damaged: measure it again",
                      run_name, label_of(r, keys), i + 1, us[i]));
    }
  }
}

}  // namespace

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
        throw usage_error(
            fmt::format("{}: case {} appears twice; a report holds each case once (was it edited or "
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
      if (!us.empty()) {
        it->second.run_figures.push_back(run_figure(us));
        it->second.run_medians_us.push_back(it->second.run_figures.back().median_us);
        it->second.median_runs.push_back(run_index);
      }
    }
  }
  return side;
}

namespace {

// Why no case could be judged: none in common, none left by the filter, or only UNKNOWN ones.
std::string nothing_judged_message(const Comparison& c) {
  const std::string filtered = c.options.filter.empty() ? "" : " (after --filter)";
  if (c.cases.empty()) {
    return fmt::format("nothing to compare: neither side has a measured case{}", filtered);
  }
  if (c.unknown > 0) {
    const auto first = std::find_if(c.cases.begin(), c.cases.end(),
                                    [](const CaseComparison& k) { return k.verdict == Verdict::unknown; });
    return fmt::format(
        "nothing could be judged: {} of {} with {} (the first: {}), the rest on one side only ({} "
        "missing, {} new)",
        c.unknown, plural(c.cases.size(), "case", "cases"), first->reason, first->label, c.missing, c.added);
  }
  return fmt::format(
      "nothing to compare: no case{} is in both the baseline and the candidate ({} only in the "
      "baseline, {} only in the candidate); compare runs of the same cases",
      filtered, c.missing, c.added);
}

}  // namespace

std::vector<std::string> label_keys(const Side& base, const Side& cand) {
  std::vector<const Record*> shown;
  for (const std::string& key : cand.order) shown.push_back(cand.cases.at(key).record);
  for (const std::string& key : base.order) shown.push_back(base.cases.at(key).record);
  return varying_keys(shown);
}

CaseComparison begin_case(const Pooled& cand, const std::vector<std::string>& keys) {
  CaseComparison c;
  c.label = label_of(*cand.record, keys);
  c.params = cand.record->params;
  c.cand_us = cand.samples_us;
  c.cand_samples = c.cand_us.size();
  return c;
}

double side_time_us(const Pooled& p, SideTime how) {
  return median(how == SideTime::pooled_samples ? p.samples_us : p.run_medians_us);
}

Pooled* match_baseline(Comparison& out, CaseComparison& c, const Pooled& cand, Side& base, const std::string& key,
                       SideTime how) {
  c.cand_run_figures = cand.run_figures;
  auto it = base.cases.find(key);
  if (it == base.cases.end()) {
    c.cand = metric_of(out.options.metric, side_time_us(cand, how), bandwidth_of(*cand.record));
    c.verdict = Verdict::added;
    c.reason = "not in the baseline";
    out.cases.push_back(std::move(c));
    return nullptr;
  }
  it->second.used = true;
  c.base_run_figures = it->second.run_figures;
  c.base_us = it->second.samples_us;
  c.base_samples = c.base_us.size();
  return &it->second;
}

void add_missing_cases(Comparison& out, const Side& base, const std::vector<std::string>& keys, SideTime how) {
  for (const std::string& key : base.order) {
    const Pooled& p = base.cases.at(key);
    if (p.used) continue;
    CaseComparison c;
    c.label = label_of(*p.record, keys);
    c.params = p.record->params;
    c.base_us = p.samples_us;
    c.base_samples = c.base_us.size();
    c.base_run_figures = p.run_figures;
    c.base = metric_of(out.options.metric, side_time_us(p, how), bandwidth_of(*p.record));
    c.verdict = Verdict::missing;
    c.reason = "not in the candidate";
    out.cases.push_back(std::move(c));
  }
}

double geometric_mean_ratio(const Comparison& c) {
  double log_sum = 0;
  std::size_t judged = 0;
  for (const CaseComparison& k : c.cases) {
    const bool tested = k.verdict == Verdict::slower || k.verdict == Verdict::faster || k.verdict == Verdict::same;
    if (!tested || !std::isfinite(k.ratio) || k.ratio <= 0) continue;
    log_sum += std::log(k.ratio);
    ++judged;
  }
  return judged > 0 ? std::exp(log_sum / static_cast<double>(judged)) : kNotMeasured;
}

void conclude(Comparison& out, std::string_view unknown_why) {
  out.geomean_ratio = geometric_mean_ratio(out);
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
  if (out.unknown > 0) out.warnings.push_back(fmt::format("{} {}", plural(out.unknown, "case", "cases"), unknown_why));
  if (out.slower + out.faster + out.same == 0) {
    throw Error(ExitCode::not_judged, nothing_judged_message(out));
  }
  if (out.missing > 0 && !out.options.allow_missing) {
    const auto first = std::find_if(out.cases.begin(), out.cases.end(),
                                    [](const CaseComparison& k) { return k.verdict == Verdict::missing; });
    out.not_judged = fmt::format(
        "{} baseline {} not in the candidate (first: {}); a case that stopped being measured "
        "may be the one that regressed: measure it, or pass --allow-missing",
        out.missing, out.missing == 1 ? "case is" : "cases are", first->label);
  }
}

}  // namespace distbench::compare::detail
