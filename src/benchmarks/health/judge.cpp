#include "benchmarks/health/judge.hpp"

#include "core/error.hpp"
#include "core/measure/stats.hpp"
#include "core/report/json_fields.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace distbench::health {
namespace {

constexpr double kMadToSigma = 1.4826;  // MAD of a normal distribution x this = its standard deviation

bool satisfies(double value, const std::string& compare, double threshold) {
  if (compare == ">=") return value >= threshold;
  if (compare == ">") return value > threshold;
  if (compare == "<=") return value <= threshold;
  return value < threshold;
}

}  // namespace

std::string RelativeBound::limit_text(std::string_view unit, bool screening) const {
  const std::string u = unit.empty() || unit == "1" ? "" : fmt::format(" {}", unit);
  const double b = screening ? suspect_bound : bound;
  return fmt::format("{} {:.4g}{} ({:.2f} x median {:.4g})", better == Better::higher ? ">=" : "<=", b, u, b / median,
                     median);
}

namespace {

// Median and scaled spread of the logarithms of `logs`: a bound factor exp(-spread) (or exp(+spread)).
std::pair<double, double> log_median_spread(const std::vector<double>& logs, const RelativeRule& rule) {
  const Summary s = summarize(logs);
  return {s.median, rule.mads * kMadToSigma * s.mad};
}

}  // namespace

std::optional<RelativeBound> relative_bound(const std::vector<double>& values, Better better,
                                            const RelativeRule& rule) {
  std::vector<double> logs;
  for (double x : values) {
    if (std::isfinite(x) && x > 0) logs.push_back(std::log(x));
  }
  if (logs.size() < 3) return std::nullopt;
  const bool higher = better == Better::higher;
  auto factor_of = [&](double spread) {
    return higher ? std::min(1 - rule.tolerance, std::exp(-spread)) : std::max(1 + rule.tolerance, std::exp(spread));
  };
  // Suspects: from every figure, never looser than half (twice) the median.
  const auto [all_median, all_spread] = log_median_spread(logs, rule);
  const double suspect_factor = higher ? std::max(factor_of(all_spread), 0.5) : std::min(factor_of(all_spread), 2.0);
  const double suspect_bound = std::exp(all_median) * suspect_factor;
  // Verdicts: held to the figures that are not suspects (the outliers must not widen their own bound), when at
  // least 3 remain.
  std::vector<double> trusted;
  for (double l : logs) {
    if (higher ? std::exp(l) >= suspect_bound : std::exp(l) <= suspect_bound) trusted.push_back(l);
  }
  const auto [median, spread] = log_median_spread(trusted.size() >= 3 ? trusted : logs, rule);
  RelativeBound b;
  b.better = better;
  b.median = std::exp(median);
  b.factor = factor_of(spread);
  b.bound = b.median * b.factor;
  b.suspect_bound = suspect_bound;
  return b;
}

std::optional<RelativeBound> judge_relative(const std::vector<Check*>& group, Better better, const RelativeRule& rule,
                                            Status severity) {
  std::vector<double> values;
  for (const Check* c : group) values.push_back(c->value);
  const auto bound = relative_bound(values, better, rule);
  if (!bound) return bound;
  for (Check* c : group) {
    if (std::isnan(c->value)) continue;  // a zero bandwidth breaks any bound
    c->limit = bound->limit_text(c->unit, c->screening);
    const bool beyond = c->screening ? bound->suspect(c->value) : bound->breaks(c->value);
    if (beyond && worse(c->status, severity) != c->status) {
      c->status = severity;
      c->why = fmt::format("{:.2f} x the median of {} figures", c->value / bound->median, values.size());
    }
  }
  return bound;
}

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative wildcard match with backtracking to the last '*'.
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] != '*' && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

namespace {

// The metrics a misspelt pattern may have meant, for its error line: those of its family (the part before the first
// '.', "memory" for "memory.copy_gpbs"), else the families, so that the line stays short as metrics are added.
std::string metrics_like(const std::string& pattern, const std::vector<std::string>& known) {
  const std::string family = pattern.substr(0, pattern.find('.'));
  std::vector<std::string> same, families;
  for (const std::string& m : known) {
    const std::string f = m.substr(0, m.find('.'));
    if (f == family) same.push_back(m);
    if (std::find(families.begin(), families.end(), f) == families.end()) families.push_back(f);
  }
  if (!same.empty()) return fmt::format("those of {}.* are {}", family, fmt::join(same, ", "));
  return fmt::format("the families are {}.*", fmt::join(families, ".*, "));
}

}  // namespace

const std::vector<std::string>& health_metrics() {
  static const std::vector<std::string> names = {
      "memory.wrong", "memory.copy_gbps", "clock.skew_ms", "node.allreduce.busbw_gbps", "node.allreduce.wrong",
      "job.allreduce.busbw_gbps", "job.allreduce.wrong", "link.bandwidth_gbps", "link.latency_us",
      "isolation.bandwidth_gbps", "isolation.isolated", "straggler.lateness_us", "phase.seconds", "phase.arrived",
      "phase.completed", "node.checked", "node.status", "cluster.status", "soak.calls_wrong", "soak.elements_wrong",
      "soak.calls", "drift.odd", "drift.split",
      // the gpu phase (gpu_checks.cpp) and the datasheet judgement
      "gpu.count", "gpu.lost", "gpu.ecc_enabled", "gpu.ecc_volatile_uncorrected", "gpu.ecc_volatile_corrected",
      "gpu.ecc_aggregate_uncorrected", "gpu.ecc_aggregate_corrected", "gpu.retired_pages_pending",
      "gpu.remapped_rows_pending", "gpu.remapped_rows_failure", "gpu.remapped_rows_uncorrectable",
      "gpu.clock_event_reasons", "gpu.temperature_c", "gpu.power_w", "gpu.sm_clock_mhz", "gpu.pcie_width",
      "gpu.pcie_gen", "gpu.nvlink_down", "gpu.nvlink_errors", "gpu.xid_since_boot", "gpu.xid_during_check",
      "gpu.peer_copy_gbps", "gpu.loaded_clock_event_reasons", "gpu.loaded_pcie_gen", "gpu.loaded_pcie_width",
      "gpu.loaded_sm_clock_mhz", "hardware.memory_fraction", "hardware.h2d_fraction", "hardware.d2h_fraction",
      "hardware.gemm_fraction"};
  return names;
}

namespace {

// What is wrong with the rules file `origin`, as the user reads it.
Error rules_error(const std::string& origin, const std::string& what) {
  return usage_error(fmt::format("rules file {}: {}; see docs/health.md, 'Health rules'", origin, what));
}

// The file's own keys: "relative" (true or false), "gpus_per_node" (1 to 64: what NVML must count on every node, for
// a cluster kind) and "rules", nothing else.
void read_file_keys(const nlohmann::ordered_json& j, const std::string& origin, Rules& out) {
  for (const auto& [key, value] : j.items()) {
    if (key == "relative") {
      if (!value.is_boolean()) throw rules_error(origin, "\"relative\" must be true or false");
      out.relative = value.get<bool>();
    } else if (key == "gpus_per_node") {
      if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > 64) {
        throw rules_error(origin, "\"gpus_per_node\" must be a whole number from 1 to 64");
      }
      out.gpus_per_node = static_cast<int>(value.get<long long>());
    } else if (key != "rules") {
      throw rules_error(origin,
                        fmt::format("unknown key \"{}\" (known: \"rules\", \"relative\", \"gpus_per_node\")", key));
    }
  }
}

// A rule's fields, each of its type; a severity is degraded or failed.
Rule read_rule_fields(const nlohmann::ordered_json& r, const std::string& where, const std::string& origin) {
  Rule rule;
  for (const auto& [key, value] : r.items()) {
    if (key == "metric" && value.is_string()) {
      rule.metric = value.get<std::string>();
    } else if (key == "compare" && value.is_string()) {
      rule.compare = value.get<std::string>();
    } else if (key == "threshold" && value.is_number()) {
      rule.threshold = value.get<double>();
    } else if (key == "severity" && value.is_string()) {
      const auto s = parse_status(value.get<std::string>());
      if (!s || (*s != Status::degraded && *s != Status::failed)) {
        throw rules_error(origin, fmt::format("{}: severity \"{}\" must be \"degraded\" or \"failed\"", where,
                                              value.get<std::string>()));
      }
      rule.severity = *s;
    } else if (key == "metric" || key == "compare" || key == "threshold" || key == "severity") {
      throw rules_error(origin, fmt::format("{}: \"{}\" has the wrong type (metric, compare, severity: strings; "
                                            "threshold: a number)",
                                            where, key));
    } else {
      throw rules_error(
          origin, fmt::format("{}: unknown key \"{}\" (known: metric, compare, threshold, severity)", where, key));
    }
  }
  return rule;
}

// A rule is whole: a metric pattern that matches a metric of the check, a comparison, a finite threshold.
void check_rule(const Rule& rule, const nlohmann::ordered_json& r, const std::string& where,
                const std::string& origin) {
  if (rule.metric.empty()) {
    throw rules_error(origin, where + ": \"metric\" (a pattern such as \"link.bandwidth_gbps\") is missing");
  }
  if (rule.compare != ">=" && rule.compare != ">" && rule.compare != "<=" && rule.compare != "<") {
    throw rules_error(origin,
                      fmt::format("{}: \"compare\" must be one of >=, >, <=, < (got \"{}\")", where, rule.compare));
  }
  if (!r.contains("threshold")) throw rules_error(origin, where + ": \"threshold\" (a number) is missing");
  if (!std::isfinite(rule.threshold)) throw rules_error(origin, where + ": \"threshold\" must be finite");
  const auto& known = health_metrics();
  if (std::none_of(known.begin(), known.end(), [&](const std::string& m) { return glob_match(rule.metric, m); })) {
    throw rules_error(origin, fmt::format("{}: \"metric\": \"{}\" matches no metric of the check ({})", where,
                                          excerpt(rule.metric), metrics_like(rule.metric, known)));
  }
}

}  // namespace

Rules parse_rules(std::string_view text, const std::string& origin) {
  std::string problem;
  const auto parsed = parse_json_text(text, problem);
  if (!parsed) throw rules_error(origin, problem);
  const nlohmann::ordered_json& j = *parsed;
  if (!j.is_object()) throw rules_error(origin, "expected an object with a \"rules\" list");
  Rules out;
  read_file_keys(j, origin, out);
  if (!j.contains("rules") || !j["rules"].is_array()) throw rules_error(origin, "expected \"rules\": a list of rules");
  std::size_t i = 0;
  for (const auto& r : j["rules"]) {
    ++i;
    const std::string where = fmt::format("rule {}", i);
    if (!r.is_object()) throw rules_error(origin, where + " is not an object");
    Rule rule = read_rule_fields(r, where, origin);
    check_rule(rule, r, where, origin);
    out.rules.push_back(std::move(rule));
  }
  return out;
}

void apply_rules(Check& c, const std::vector<Rule>& rules) {
  if (std::isnan(c.value)) return;
  for (const Rule& r : rules) {
    if (!glob_match(r.metric, c.metric)) continue;
    const std::string unit = c.unit.empty() || c.unit == "1" ? "" : " " + c.unit;
    const std::string limit = fmt::format("{} {:g}{}", r.compare, r.threshold, unit);
    c.limit = c.limit.empty() ? limit : c.limit + "; " + limit;
    if (!satisfies(c.value, r.compare, r.threshold) && worse(c.status, r.severity) != c.status) {
      c.status = r.severity;
      c.why = fmt::format("breaks the rule {} {} {:g}", r.metric, r.compare, r.threshold);
    }
  }
}

}  // namespace distbench::health
