// What both ways of comparing share (reports against reports, and interleaved rounds): a case's identity and label,
// its time samples, its metric, the checks that reports can be compared, and each side's cases pooled over its runs.
#pragma once

#include "compare/comparison.hpp"
#include "core/report/json_model.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::compare::detail {

double median(std::vector<double> v);  // kNotMeasured when empty

// A p-value in a reason: "0.0031", or "2e-07" below 1e-4.
std::string p_words(double p);

// A case's identity: its kind and every parameter, in order.
std::string case_key(const Record& r);

// The samples a comparison tests: the record's first phase, microseconds per operation.
std::vector<double> time_samples_us(const Record& r);

// Bytes moved per operation and the bus factor (busbw / algbw), for the bandwidth metrics.
struct Bandwidth {
  double bytes = kNotMeasured;
  double bus_factor = kNotMeasured;
};
Bandwidth bandwidth_of(const Record& r);

// The metric's value for a time per operation (us).
double metric_of(CompareMetric m, double time_us, const Bandwidth& b);

// The label of each case: the parameters whose values differ between cases (bytes as a size), in layout order.
std::vector<std::string> varying_keys(const std::vector<const Record*>& records);
std::string label_of(const Record& r, const std::vector<std::string>& keys);

// Throws usage_error when `other` (e.g. "baseline 2") ran another benchmark, world size or backend than `cand`.
void check_comparable(const ParsedReport& other, const ParsedReport& cand, std::string_view other_name);

// `items` as a phrase: "a", "a and b", "a, b and c", or beyond three "a, b, c and 4 more cases" (`noun`: "case").
std::string listed(const std::vector<std::string>& items, std::string_view noun);

// The cases of `run` that pass `filter` and counted wrong elements (a "wrong" metric above 0), named: "allreduce 8 B
// (1000 wrong), allreduce 16 B (1000 wrong) and 6 more"; "" when none did.
std::string wrong_cases(const ParsedReport& run, const std::vector<Condition>& filter);

// The checks before pooling, for both sides' runs: each run complete (else Error(not_judged): it may lack exactly the
// cases that regressed), the metric in the reports (usage_error for --metric busbw on reports without bandwidth),
// every --filter field in some case (usage_error), and no case that passes the filter with wrong elements (else
// Error(wrong_results): a run that computed wrong results measured nothing a verdict may rest on, on either side).
void check_inputs(const std::vector<ParsedReport>& base, const std::vector<ParsedReport>& cand,
                  const CompareOptions& options, std::string_view base_name, std::string_view cand_name);

// One side of a comparison: each case's samples pooled over the runs, and each run's own median time, in run order.
struct Pooled {
  const Record* record = nullptr;
  std::vector<double> samples_us;
  std::vector<double> run_medians_us;
  std::vector<RunFigure> run_figures;    // each of run_medians_us with its interval and sample count
  std::vector<std::size_t> median_runs;  // the run (index into the runs pooled) of each of run_medians_us
  bool used = false;
};

struct Side {
  std::map<std::string, Pooled> cases;
  std::vector<std::string> order;  // first-seen order of the case keys
};

// Pools the runs' ok records that pass the filter. Throws usage_error for a case twice in one run and for a sample
// that is not a positive finite time. `side_name` names the runs in messages ("baseline" -> "baseline 2").
Side pool(const std::vector<ParsedReport>& runs, const CompareOptions& options, std::string_view side_name);

// The keys of the cases' labels, over the cases of both sides.
std::vector<std::string> label_keys(const Side& base, const Side& cand);

// A case's comparison begun from the candidate's pooled case: its label, parameters and samples.
CaseComparison begin_case(const Pooled& cand, const std::vector<std::string>& keys);

// A side's time of a case: the median of its samples pooled over its runs (interleaved), or the median of its runs'
// medians (reports: the run is the unit).
enum class SideTime { pooled_samples, median_of_runs };
double side_time_us(const Pooled& p, SideTime how);

// The baseline's case of `key`, marked used, with its samples set in `c`; nullptr when the baseline lacks it (`c`
// is then NEW, with the candidate's time `how`, and added to `out`).
Pooled* match_baseline(Comparison& out, CaseComparison& c, const Pooled& cand, Side& base, const std::string& key,
                       SideTime how = SideTime::pooled_samples);

// Adds each case of `base` that no candidate case used (Pooled::used) as MISSING, with the baseline's time `how`.
void add_missing_cases(Comparison& out, const Side& base, const std::vector<std::string>& keys,
                       SideTime how = SideTime::pooled_samples);

// The geometric mean of the ratios of the cases judged (SLOWER, FASTER, SAME); kNotMeasured when none.
double geometric_mean_ratio(const Comparison& c);

// Sets the geometric mean, counts the verdicts, warns about UNKNOWN cases ("N cases " + `unknown_why`: "could not be
// tested ..."), and fails
// closed: throws Error(not_judged) when no case could be judged (none in common, none left by the filter, only
// UNKNOWN ones), and sets `not_judged` when baseline cases are missing from the candidate without allow_missing.
void conclude(Comparison& out, std::string_view unknown_why);

}  // namespace distbench::compare::detail
