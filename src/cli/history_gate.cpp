// `distbench history check DB`: each series of the history checked for a change point among its newest runs
// (src/history/history_check.hpp), with compare's verdicts, formats and exit codes: 0 no regression; 1 a case got
// SLOWER; 2 bad input; 3 the newest run counted wrong elements; 7 the gate could not judge; 8 it failed to run.
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/gate_ending.hpp"
#include "cli/history_parts.hpp"
#include "cli/option_groups.hpp"
#include "cli/validators.hpp"
#include "compare/case_filter.hpp"
#include "core/error.hpp"
#include "core/report/atomic_file.hpp"
#include "history/history_check.hpp"
#include "history/history_db.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <memory>

namespace distbench::cli {
namespace {

constexpr double kMaxHistoryFloorUs = 1e9;  // as compare's --floor-us
constexpr long long kMaxWindow = 10'000, kMaxLast = 1'000'000, kMaxMinSegment = 1'000;

struct CheckArgs {
  HistoryFile file;
  std::string metric = "time";
  double threshold_pct = 5, floor_us = 1.0, alpha = 0.01, max_p = 0.001;
  long long window = 5, min_segment = 3, last = 0;
  std::string filter, machine, format = "text", output;
};

history::CheckOptions check_options_of(const CheckArgs& a) {
  history::CheckOptions o;
  o.gate.metric = compare::parse_compare_metric(a.metric);
  o.gate.threshold = a.threshold_pct / 100;
  if (!(a.alpha > 0 && a.alpha < 0.5))
    throw usage_error(fmt::format("--alpha {:g}: give a level in (0, 0.5), e.g. 0.01", a.alpha));
  if (!(a.max_p > 0 && a.max_p < 0.5))
    throw usage_error(fmt::format("--max-p {:g}: give a level in (0, 0.5), e.g. 0.001", a.max_p));
  o.gate.floor_us = a.floor_us;
  o.gate.alpha = a.alpha;
  o.gate.filter = compare::parse_filter(a.filter);
  o.window = static_cast<std::size_t>(a.window);
  o.detector.max_p = a.max_p;
  o.detector.min_segment = static_cast<std::size_t>(a.min_segment);
  return o;
}

int run_history_check(const CheckArgs& a) {
  const history::CheckOptions options = check_options_of(a);
  if (!a.output.empty()) {
    check_writable(a.output);
    check_distinct_files({{"--output", a.output}}, {{"the history", a.file.path}});
  }
  history::HistoryDb db(a.file.path, false, a.file.lock_timeout_s);
  history::SeriesQuery query;
  query.machine = a.machine;
  query.last = static_cast<std::size_t>(a.last);
  // check_history applies --filter and refuses a newest run that counted wrong elements.
  const std::vector<history::Series> series = db.series(query, true);
  if (series.empty() && !a.machine.empty()) {
    throw Error(ExitCode::not_judged, "no series of --machine " + a.machine + " to check");
  }
  const history::HistoryCheck check = history::check_history(series, options);
  const compare::Comparison& c = check.comparison;
  const std::string text = history::history_view(a.format, check, series);
  return end_gate(c, text, a.output);
}

constexpr const char* kHistoryGateGroup = "Gate";
constexpr const char* kDetectorGroup = "Change points";

void add_history_gate_options(CLI::App& app, CheckArgs& a) {
  app.add_option("--window", a.window, "A change among each series' newest N runs gates it")
      ->option_text("N")
      ->group(kHistoryGateGroup)
      ->check(in_range(1, kMaxWindow));
  app.add_option("--metric", a.metric, "What to judge: time, busbw or algbw")
      ->option_text("METRIC")
      ->group(kHistoryGateGroup)
      ->check(one_of({"time", "busbw", "algbw"}));
  app.add_option("--threshold", a.threshold_pct, "Relative change that matters, e.g. 5%")
      ->option_text("PERCENT")
      ->default_str("5%")
      ->group(kHistoryGateGroup)
      ->transform(percentage(0, 1000));
  app.add_option("--floor-us", a.floor_us, "Change of the time per operation that matters (us)")
      ->option_text("US")
      ->group(kHistoryGateGroup)
      ->check(non_negative_number("microseconds", kMaxHistoryFloorUs));
  app.add_option("--alpha", a.alpha, "Significance level of the newest run's test against the segment before it")
      ->option_text("P")
      ->group(kHistoryGateGroup);
}

void add_history_series_options(CLI::App& app, CheckArgs& a) {
  app.add_option("--max-p", a.max_p, "A change point stands when its t-test gives p below this")
      ->option_text("P")
      ->group(kDetectorGroup);
  app.add_option("--min-segment", a.min_segment, "The fewest runs between two change points")
      ->option_text("N")
      ->group(kDetectorGroup)
      ->check(in_range(2, kMaxMinSegment));
  app.add_option("--filter", a.filter, "Series whose case matches: key=value, key!=value, key>=number, comma-separated")
      ->option_text("RULES")
      ->group(kHistoryGateGroup);
  app.add_option("--machine", a.machine, "Only the runs of this kind of machine")
      ->option_text("NAME")
      ->group(kHistoryGateGroup);
  app.add_option("--last", a.last, "Only each series' newest N runs (0: all)")
      ->option_text("N")
      ->group(kHistoryGateGroup)
      ->check(in_range(0, kMaxLast));
}

}  // namespace

void add_history_check_command(CLI::App& history, Commands& commands) {
  auto* app = history.add_subcommand("check", "The gate over time: a change point among the newest runs fails it");
  app->footer(help_footer("More: docs/history.md, 'Commands'.", compare_exit_code_lines()));
  auto a = std::make_shared<CheckArgs>();
  add_history_file_options(*app, a->file);
  add_history_gate_options(*app, *a);
  add_history_series_options(*app, *a);
  app->add_option("--format", a->format, "text, md (markdown), json, junit or html")
      ->option_text("FORMAT")
      ->group(groups::kOutput)
      ->transform(one_of({"text", "markdown", "json", "junit", "html"}, {{"md", "markdown"}}));
  app->add_option("-o,--output", a->output, "Write it to this file (atomically) instead of stdout")
      ->option_text("PATH")
      ->group(groups::kOutput)
      ->check(non_empty_path());
  commands.push_back({app, [a](Invocation&) { return run_history_check(*a); }, gate_exit_code_of_error});
}

}  // namespace distbench::cli
