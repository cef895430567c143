#include "compare/comparison.hpp"

#include "compare/rank_tests.hpp"
#include "core/error.hpp"
#include "core/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

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

void check_comparable(const ParsedReport& base, const ParsedReport& cand, std::size_t index) {
  const std::string which = fmt::format("baseline {}", index + 1);
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

void judge(CaseComparison& c, const CompareOptions& o) {
  if (c.base_samples < kMinSamplesToTest || c.cand_samples < kMinSamplesToTest) {
    c.verdict = Verdict::unknown;
    c.reason = fmt::format("too few samples to test ({} and {}; at least {} a side)", c.base_samples, c.cand_samples,
                           kMinSamplesToTest);
    return;
  }
  // "worse" is positive when the time grew (bandwidth fell), whatever the metric.
  const double worse = o.metric == CompareMetric::time ? c.change : -c.change;
  const bool significant = c.p < o.alpha;
  if (significant && worse > o.threshold && c.time_delta_us > o.floor_us) {
    c.verdict = Verdict::slower;
  } else if (significant && worse < -o.threshold && -c.time_delta_us > o.floor_us) {
    c.verdict = Verdict::faster;
  } else {
    c.verdict = Verdict::same;
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

Comparison compare_reports(const std::vector<ParsedReport>& baselines, const ParsedReport& candidate,
                           const CompareOptions& options) {
  if (baselines.empty()) throw usage_error("compare needs at least one baseline report and a candidate");
  for (std::size_t i = 0; i < baselines.size(); ++i) check_comparable(baselines[i], candidate, i);
  Comparison out;
  out.benchmark = candidate.benchmark;
  out.options = options;
  out.metric_unit = options.metric == CompareMetric::time ? "us" : "GB/s";
  if (options.metric != CompareMetric::time) {
    const auto& metrics = candidate.layout.metrics;
    const bool has = std::any_of(metrics.begin(), metrics.end(), [](const MetricSpec& m) { return m.key == "algbw_gbps"; });
    if (!has) {
      throw usage_error(fmt::format("--metric {}: '{}' reports have no bandwidth; use --metric time", name(options.metric),
                                    candidate.benchmark));
    }
  }
  for (const ParsedReport* r : {&candidate}) {
    if (r->info.status != "complete") {
      out.warnings.push_back(fmt::format("the candidate report is {} ({}): only the cases it measured are compared",
                                         r->info.status, r->info.error.empty() ? "no reason given" : r->info.error));
    }
  }

  // Pool the baselines' samples per case, in first-seen order.
  struct Pooled {
    const Record* record = nullptr;
    std::vector<double> samples_us;
    bool used = false;
  };
  std::map<std::string, Pooled> pooled;
  std::vector<std::string> base_order;
  for (const ParsedReport& b : baselines) {
    for (const Record& r : b.records) {
      if (!r.ok() || !matches(r, options.filter)) continue;
      const std::string key = case_key(r);
      auto [it, fresh] = pooled.try_emplace(key);
      if (fresh) {
        it->second.record = &r;
        base_order.push_back(key);
      }
      const auto us = time_samples_us(r);
      it->second.samples_us.insert(it->second.samples_us.end(), us.begin(), us.end());
    }
  }

  std::vector<const Record*> shown;  // every case, for the labels
  for (const Record& r : candidate.records) {
    if (r.ok() && matches(r, options.filter)) shown.push_back(&r);
  }
  for (const std::string& key : base_order) shown.push_back(pooled[key].record);
  const auto keys = varying_keys(shown);

  double log_sum = 0;
  std::size_t tested = 0;
  const double confidence = 1 - options.alpha;
  for (const Record& r : candidate.records) {
    if (!r.ok() || !matches(r, options.filter)) continue;
    CaseComparison c;
    c.label = label_of(r, keys);
    c.params = r.params;
    c.cand_us = time_samples_us(r);
    c.cand_samples = c.cand_us.size();
    const Bandwidth bw = bandwidth_of(r);
    const double cand_time = median(c.cand_us);
    c.cand = metric_of(options.metric, cand_time, bw);
    auto it = pooled.find(case_key(r));
    if (it == pooled.end()) {
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
    }
    out.cases.push_back(std::move(c));
  }
  for (const std::string& key : base_order) {
    const Pooled& p = pooled[key];
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
    out.warnings.push_back(fmt::format("{} cases have fewer than {} samples on a side and could not be tested; run "
                                       "with more samples (-n 20)",
                                       out.unknown, kMinSamplesToTest));
  }
  if (out.cases.empty()) out.warnings.push_back("no case to compare (check --filter)");
  return out;
}

}  // namespace distbench
