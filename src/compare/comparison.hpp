// `distbench compare`: baseline reports (runs, e.g. a window of past ones) against the candidate's runs, case by case,
// with a verdict that needs both statistical significance and a practical size (a relative threshold and an absolute
// floor), so that a noisy machine does not cry wolf. The run is the unit: the samples of one run share its machine's
// state, so the test (Mann-Whitney U) compares the runs' medians, never the samples pooled over runs; with too few
// runs for any test at alpha the gate fails closed, unless asked to judge on the threshold alone (threshold_only).
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
  // Reports only: no significance test; the verdict rests on the threshold, the floor and the run extremes alone.
  bool threshold_only = false;
};

enum class Verdict { slower, faster, same, unknown, missing, added };
std::string_view name(Verdict v);  // "SLOWER", "FASTER", "SAME", "UNKNOWN", "MISSING", "NEW"

// One run's figures of a case: the median of its time samples (us) with its distribution-free 95% interval (order
// statistics; [min, max] below 6 samples), and how many samples it had.
struct RunFigure {
  double median_us = kNotMeasured, low_us = kNotMeasured, high_us = kNotMeasured;
  std::size_t samples = 0;
};

struct CaseComparison {
  std::string label;  // what varies between cases, e.g. "allreduce 1 MiB float32 sum out-of-place"
  std::vector<Param> params;
  std::size_t base_samples = 0, cand_samples = 0;
  // The metric (us or GB/s) of each side: reports, the median of its runs' medians; interleaved, the same over rounds.
  double base = kNotMeasured, cand = kNotMeasured;
  double ratio = kNotMeasured;  // cand / base of the metric
  // ratio - 1 and its 1 - alpha interval (reports: Hodges-Lehmann over the runs' medians; none when threshold_only)
  double change = kNotMeasured, change_low = kNotMeasured, change_high = kNotMeasured;
  // Two-sided; reports: Mann-Whitney U on the runs' median times (none when threshold_only or too few runs);
  // interleaved: the signed-rank test of the rounds.
  double p = kNotMeasured;
  double time_delta_us = kNotMeasured;  // candidate's median time per operation minus the baseline's
  // Run-level: the fastest candidate run's median over the slowest baseline run's, minus 1 (and the other way
  // round): a verdict needs every run of one side beyond every run of the other. Equal to the change (in time) with
  // one run a side.
  double worst_case_slowdown = kNotMeasured, worst_case_speedup = kNotMeasured;
  std::size_t base_runs = 0, cand_runs = 0;
  Verdict verdict = Verdict::unknown;
  std::string reason;                // why this verdict: the rule that decided it (every verdict has one)
  std::vector<double> round_ratios;  // interleaved runs: each round's candidate / baseline run median (time)
  std::vector<RunFigure> base_run_figures, cand_run_figures;  // each run that measured the case, in run order
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
// one report), Error(wrong_results) when one counts wrong elements, and Error(not_judged) when a report is not
// complete, when there are too few runs for the test at alpha to ever reject (unless threshold_only; checked before
// the samples are read), or when no case could be judged (none in common, all UNKNOWN). Each side is a list of runs.
Comparison compare_reports(const std::vector<ParsedReport>& baselines, const std::vector<ParsedReport>& candidates,
                           const CompareOptions& options);
Comparison compare_reports(const std::vector<ParsedReport>& baselines, const ParsedReport& candidate,
                           const CompareOptions& options);

}  // namespace distbench::compare
