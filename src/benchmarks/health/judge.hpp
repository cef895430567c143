// How health figures are judged: against the cluster's own median with a robust spread (median / MAD) by default,
// and against absolute bounds from --expect-busbw or a rules file for a known kind of cluster.
#pragma once

#include "benchmarks/health/verdict.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::health {

enum class Better { higher, lower };

// A figure is an outlier when it is beyond BOTH bounds: `tolerance` of the median (so that a tight group does not
// flag a few per cent) and `mads` robust deviations. Bandwidths and latencies are ratios by nature (a link half as
// fast, a node twice as slow): the spread is taken on their logarithms, so that the bound is a factor of the
// median, and a noisy group widens the factor instead of driving the bound below zero.
struct RelativeRule {
  double tolerance = 0.25;  // higher is better: bad below (1 - tolerance) x median; lower: above (1 + tolerance) x
  double mads = 4.0;
};

// The bounds a group gives. Suspects are judged against every figure; verdicts against the figures that are not
// suspects (so that outliers do not widen their own bound): a value beyond `bound` (below, for higher-is-better)
// is an outlier.
struct RelativeBound {
  double median = 0;  // of the figures that are not suspects (of all, when fewer than 3 are left)
  double bound = 0;
  double factor = 1;  // bound / median
  Better better = Better::higher;
  // A figure measured among others is a suspect (to be re-tested alone) beyond this, which is never looser than
  // half (twice) the median of all: re-tests are cheap, and a noisy group must not hide a link at a hundredth of
  // its peers.
  double suspect_bound = 0;
  std::string limit_text(std::string_view unit, bool screening = false) const;
  bool breaks(double value) const { return better == Better::higher ? value < bound : value > bound; }
  bool suspect(double value) const { return better == Better::higher ? value < suspect_bound : value > suspect_bound; }
};
// nullopt for fewer than 3 figures with a value (2 figures have no majority to call one of them the odd one out).
std::optional<RelativeBound> relative_bound(const std::vector<double>& values, Better better, const RelativeRule& rule);

// Judges each check of `group` (one metric over comparable subjects) against the group's bound (the suspect bound
// for screening checks): one beyond it gets `severity` unless it is already worse; every check gets the limit.
// Returns the bound (nullopt: too few).
std::optional<RelativeBound> judge_relative(const std::vector<Check*>& group, Better better, const RelativeRule& rule,
                                            Status severity = Status::degraded);

// One line of a rules file: checks whose metric matches `metric` (a glob, '*' for any characters) must satisfy
// `value <compare> threshold`, else they get `severity`.
struct Rule {
  std::string metric;
  std::string compare;  // ">=", ">", "<=", "<"
  double threshold = 0;
  Status severity = Status::degraded;
};

struct Rules {
  std::vector<Rule> rules;
  bool relative = true;  // also judge against the cluster's median (the rules file's "relative": false turns it off)
  std::optional<int> gpus_per_node;  // "gpus_per_node": what NVML must count on every node (--gpus-per-node wins)
};

// Every metric a health check reports, by name: a rule's pattern must match one of them (a misspelt metric would
// otherwise disable its rule in silence).
const std::vector<std::string>& health_metrics();

// A rules file's text, {"relative": bool, "rules": [{"metric", "compare", "threshold", "severity"}, ...]};
// throws usage_error naming `origin` and what is wrong.
Rules parse_rules(std::string_view text, const std::string& origin);
bool glob_match(std::string_view pattern, std::string_view text);
// Applies every rule whose pattern matches c.metric; a value that breaks one worsens the status to its severity.
void apply_rules(Check& c, const std::vector<Rule>& rules);

}  // namespace distbench::health
