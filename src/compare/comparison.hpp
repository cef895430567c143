// `distbench compare`: baseline reports (one, or several pooled as a window of past runs) against a candidate,
// case by case, with a verdict that needs both statistical significance (Mann-Whitney U on the raw samples) and a
// practical size (a relative threshold and an absolute floor), so that a noisy machine does not cry wolf.
#pragma once

#include "compare/case_filter.hpp"
#include "core/report/json_model.hpp"

#include <string>
#include <vector>

namespace distbench::compare {

enum class CompareMetric { time, busbw, algbw };
std::string_view name(CompareMetric m);
CompareMetric parse_compare_metric(std::string_view text);  // throws usage_error

struct CompareOptions {
  CompareMetric metric = CompareMetric::time;
  double threshold = 0.05;  // relative change of the metric that matters (0.05: 5 %)
  double floor_us = 1.0;    // and an absolute change of the time per operation that matters, microseconds
  double alpha = 0.01;      // significance level of the two-sided test
  std::vector<Condition> filter;
  bool allow_missing = false;  // cases of the baseline absent from the candidate do not fail the gate
};

enum class Verdict { slower, faster, same, unknown, missing, added };
std::string_view name(Verdict v);  // "SLOWER", "FASTER", "SAME", "UNKNOWN", "MISSING", "NEW"

struct CaseComparison {
  std::string label;  // what varies between cases, e.g. "allreduce 1 MiB float32 sum out-of-place"
  std::vector<Param> params;
  std::size_t base_samples = 0, cand_samples = 0;
  double base = kNotMeasured, cand = kNotMeasured;  // medians of the metric (us or GB/s)
  double ratio = kNotMeasured;                      // cand / base of the metric
  double change = kNotMeasured, change_low = kNotMeasured, change_high = kNotMeasured;  // ratio - 1 and its CI
  double p = kNotMeasured;              // two-sided Mann-Whitney U on the time samples
  double time_delta_us = kNotMeasured;  // candidate's median time per operation minus the baseline's
  // Run-level: the fastest candidate run's median over the slowest baseline run's, minus 1 (and the other way
  // round): a verdict needs every run of one side beyond every run of the other. Equal to the change (in time) with
  // one run a side.
  double worst_case_slowdown = kNotMeasured, worst_case_speedup = kNotMeasured;
  std::size_t base_runs = 0, cand_runs = 0;
  Verdict verdict = Verdict::unknown;
  std::string reason;                // why this verdict: the rule that decided it (every verdict has one)
  std::vector<double> round_ratios;  // interleaved runs: each round's candidate / baseline run median (time)
  // Per-size samples for plots: the time samples of each side (microseconds per operation).
  std::vector<double> base_us, cand_us;
};

struct Comparison {
  std::string benchmark;  // the records' kind
  CompareOptions options;
  std::string metric_unit;  // "us" or "GB/s"
  std::size_t baseline_runs = 0, candidate_runs = 0;
  std::size_t rounds = 0;  // interleaved runs (compare_rounds): paired rounds; 0: reports compared as they are
  std::vector<CaseComparison> cases;  // candidate order, then baseline-only cases
  std::size_t slower = 0, faster = 0, same = 0, unknown = 0, missing = 0, added = 0;
  double geomean_ratio = kNotMeasured;  // over the cases tested (SLOWER, FASTER, SAME)
  std::vector<std::string> warnings;

  // Why the gate could not judge although cases were compared (baseline cases missing from the candidate without
  // allow_missing); empty when it judged. A gate that could not judge fails (ExitCode::not_judged).
  std::string not_judged;

  bool regressed() const { return slower > 0; }
  std::string summary_line() const;  // "2 slower, 0 faster, 40 same, 1 unknown, 0 missing, 0 new; geometric mean ..."
};

// Throws usage_error when the reports cannot be compared (another benchmark, world size or backend; a metric the
// records do not have; a filter on a field no case has; a sample that is not a positive finite time; a case twice in
// one report), and Error(not_judged) when a report is not complete or no case could be judged (none in common, all
// UNKNOWN). Several candidate runs are pooled like the baselines.
Comparison compare_reports(const std::vector<ParsedReport>& baselines, const std::vector<ParsedReport>& candidates,
                           const CompareOptions& options);
Comparison compare_reports(const std::vector<ParsedReport>& baselines, const ParsedReport& candidate,
                           const CompareOptions& options);

}  // namespace distbench::compare
