// `distbench compare BASELINE... CANDIDATE...`: the CI regression gate (src/compare), on reports measured before, each
// a run (the test compares the runs' medians; --threshold-only judges without one); or
// `distbench compare --run-baseline CMD --run-candidate CMD`: the gate runs both sides itself, interleaved, and pairs
// them round by round. Exit 0: no regression; 1: at least one case SLOWER; 2: bad input or reports that cannot be
// compared; 3: a report (of either side) counts wrong elements; 7: the gate could not judge (too few runs to test,
// nothing compared, cases missing from the candidate or from a round, a report or a run that did not complete): it
// fails closed; 8: it failed to run (I/O, an internal error), apart from 1 so that CI tells the two apart.
#include "cli/command.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/gate_ending.hpp"
#include "cli/option_groups.hpp"
#include "cli/validators.hpp"
#include "compare/compare_views.hpp"
#include "compare/comparison.hpp"
#include "compare/interleaved.hpp"
#include "compare/paired_comparison.hpp"
#include "compare/signed_rank.hpp"
#include "core/error.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/report_file.hpp"
#include "core/sys/quote.hpp"
#include "core/sys/text_file.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <unistd.h>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

namespace distbench::cli {
namespace {

using compare::CommandRunner;
using compare::CompareOptions;
using compare::CompareSources;
using compare::Comparison;
using compare::InterleavedPlan;
using compare::InterleavedRuns;

// The bounds of the numeric options that have no natural one (--rounds, --threshold and --alpha have theirs).
constexpr double kMaxFloorUs = 1e9;              // a floor of 1000 s per operation
constexpr long long kMaxCandidateRuns = 10'000;  // files on one command line
constexpr double kMaxRunTimeoutSeconds = 1e6;    // 11.6 days for one run

struct CompareArgs {
  std::vector<std::string> files;
  std::string metric = "time";
  double threshold_pct = 5;
  double floor_us = 1.0;
  double alpha = 0.01;
  std::string filter;
  std::string format = "text";
  std::string output;
  int candidates = 1;
  bool allow_missing = false;
  bool threshold_only = false;
  InterleavedPlan interleaved;  // --run-baseline / --run-candidate
};

bool interleaved_mode(const CompareArgs& a) {
  return !a.interleaved.baseline_command.empty() || !a.interleaved.candidate_command.empty();
}

// A new folder for the runs' reports and output: $TMPDIR/distbench-interleaved-XXXXXX.
std::string new_runs_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string path =
      (std::filesystem::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") / "distbench-interleaved-XXXXXX").string();
  compare::check_runs_dir_name(path, "$TMPDIR's folder");
  if (::mkdtemp(path.data()) == nullptr) {
    throw failure(fmt::format("cannot create a folder for the runs in {}: {}; name one with --runs-dir",
                              std::filesystem::path(path).parent_path().string(), std::strerror(errno)));
  }
  return path;
}

CompareOptions options_of(const CompareArgs& a) {
  CompareOptions options;
  options.metric = compare::parse_compare_metric(a.metric);
  options.threshold = a.threshold_pct / 100;
  if (!(a.floor_us >= 0)) throw usage_error("--floor-us must be 0 or more microseconds");
  if (!(a.alpha > 0 && a.alpha < 0.5))
    throw usage_error(fmt::format("--alpha {:g}: give a level in (0, 0.5), e.g. 0.01", a.alpha));
  options.floor_us = a.floor_us;
  options.alpha = a.alpha;
  options.filter = compare::parse_filter(a.filter);
  options.allow_missing = a.allow_missing;
  options.threshold_only = a.threshold_only;
  return options;
}

// A report given as both a baseline and a candidate run: the gate can see no change there; one line says so.
void warn_same_files(const std::vector<std::string>& files, std::size_t first_candidate) {
  for (std::size_t c = first_candidate; c < files.size(); ++c) {
    for (std::size_t b = 0; b < first_candidate; ++b) {
      std::error_code ec;
      if (!std::filesystem::equivalent(files[b], files[c], ec) || ec) continue;
      fmt::print(stderr, "warning: {} is both a baseline and a candidate run: it cannot differ from itself\n",
                 escape_text(files[c]));
      return;
    }
  }
}

// Options of the other way to compare: with report files, the interleaved runs' (--rounds, ...); --alpha without a
// test.
std::vector<UnusedOption> compare_unused(const CompareArgs& a) {
  std::vector<UnusedOption> out;
  if (!interleaved_mode(a)) {
    for (const char* name : {"--rounds", "--run-timeout", "--runs-dir"})
      out.push_back({name, "it is for interleaved runs (--run-baseline, --run-candidate), not report files"});
  }
  if (a.threshold_only) out.push_back({"--alpha", "--threshold-only judges without a test"});
  return out;
}

// The baselines and candidates as reports measured before.
Comparison compare_files(const CompareArgs& a, const CompareOptions& options, CompareSources& sources) {
  if (a.candidates < 1) throw usage_error("--candidates must be 1 or more");
  if (a.files.size() < static_cast<std::size_t>(a.candidates) + 1) {
    throw usage_error(
        fmt::format("compare needs a baseline report and {} (BASELINE... CANDIDATE...; --candidates {} "
                    "takes the last {} files as the candidate's runs), or --run-baseline and "
                    "--run-candidate to measure both sides itself",
                    a.candidates == 1 ? "a candidate report" : "the candidate's reports", a.candidates, a.candidates));
  }
  const std::size_t first_candidate = a.files.size() - static_cast<std::size_t>(a.candidates);
  std::vector<ParsedReport> baselines, candidates;
  for (std::size_t i = 0; i < a.files.size(); ++i) {
    (i < first_candidate ? baselines : candidates).push_back(read_report_file(a.files[i]));
  }
  warn_same_files(a.files, first_candidate);
  sources.baselines.assign(a.files.begin(), a.files.begin() + static_cast<std::ptrdiff_t>(first_candidate));
  for (std::size_t i = first_candidate; i < a.files.size(); ++i) {
    if (!sources.candidate.empty()) sources.candidate += ", ";
    sources.candidate += a.files[i];
  }
  return compare::compare_reports(baselines, candidates, options);
}

// Both sides measured here, interleaved; an interrupt ends the running command's process group first.
Comparison compare_interleaved(const CompareArgs& a, const CompareOptions& options, CompareSources& sources,
                               Invocation& inv) {
  if (!a.files.empty()) {
    throw usage_error("give either report files or --run-baseline and --run-candidate, not both");
  }
  if (a.candidates != 1) throw usage_error("--candidates is for report files; with --run-candidate use --rounds");
  if (a.threshold_only) {
    throw usage_error("--threshold-only is for report files; interleaved rounds are paired and tested (--rounds)");
  }
  InterleavedPlan plan = a.interleaved;
  if (plan.baseline_command.empty() || plan.candidate_command.empty()) {
    throw usage_error("an interleaved comparison needs both --run-baseline CMD and --run-candidate CMD");
  }
  // Fail before running anything when the rounds could never make a change significant at this level.
  if (const std::size_t needed = compare::min_pairs_to_test(options.alpha);
      static_cast<std::size_t>(plan.rounds) < needed) {
    throw usage_error(
        fmt::format("--rounds {} can never show a change at --alpha {:g}: the signed-rank test needs "
                    "{} rounds or more there; raise --rounds to {} (or --alpha)",
                    plan.rounds, options.alpha, needed, needed));
  }
  if (plan.runs_dir.empty()) plan.runs_dir = new_runs_dir();
  CommandRunner runner;
  const std::string runs_dir = plan.runs_dir;
  std::unique_ptr<TerminationSignals::Scoped> on_signal;
  if (inv.signals != nullptr) {
    on_signal = std::make_unique<TerminationSignals::Scoped>(*inv.signals, [&runner, runs_dir](int signal) {
      runner.stop();
      fmt::print(stderr, "error: interrupted by signal {} (SIG{}); the runs so far are in {}\n", signal,
                 sigabbrev_np(signal), runs_dir);
      std::fflush(stderr);
      std::_Exit(exit_status_for_signal(signal));
    });
  }
  fmt::print(stderr, "compare: {} rounds of baseline and candidate, interleaved; runs kept in {}\n", plan.rounds,
             runs_dir);
  const InterleavedRuns runs = compare::run_interleaved(
      plan, runner, [](const std::string& line) { fmt::print(stderr, "compare: {}\n", line); });
  sources.baselines = {plan.baseline_command};
  sources.candidate = plan.candidate_command;
  return compare::compare_rounds(runs.baseline, runs.candidate, options);
}

int run_compare(const CompareArgs& a, const CLI::App& app, Invocation& inv) {
  const CompareOptions options = options_of(a);
  for (const Warning& w : given_but_unused(app, compare_unused(a))) fmt::print(stderr, "warning: {}\n", w.message);
  if (!a.output.empty()) {
    check_writable(a.output);
    std::vector<NamedPath> inputs;
    for (const std::string& f : a.files) inputs.push_back({"a report", f});
    check_distinct_files({{"--output", a.output}}, inputs);
  }
  CompareSources sources;
  const Comparison c =
      interleaved_mode(a) ? compare_interleaved(a, options, sources, inv) : compare_files(a, options, sources);
  std::string text;
  if (a.format == "text") text = compare::compare_text(c);
  if (a.format == "markdown") text = compare::compare_markdown(c, sources);
  if (a.format == "json") text = compare::compare_json(c, sources);
  if (a.format == "junit") text = compare::compare_junit(c, sources);
  if (a.format == "html") text = compare::compare_html(c, sources);
  return end_gate(c, text, a.output);
}

constexpr const char* kGateGroup = "Comparison";
constexpr const char* kInterleavedGroup = "Interleaved A/B (instead of reports)";

// What the gate judges and how strictly: the metric, the change that matters, the test's level, the cases.
void add_gate_options(CLI::App& app, CompareArgs& a) {
  app.add_option("--metric", a.metric, "What to judge: time, busbw or algbw")
      ->option_text("METRIC")
      ->group(kGateGroup)
      ->check(one_of({"time", "busbw", "algbw"}));
  app.add_option("--threshold", a.threshold_pct, "Relative change that matters, e.g. 5%")
      ->option_text("PERCENT")
      ->default_str("5%")
      ->group(kGateGroup)
      ->transform(percentage(0, 1000));
  app.add_option("--floor-us", a.floor_us, "Change of the time per operation that matters (us)")
      ->option_text("US")
      ->group(kGateGroup)
      ->check(non_negative_number("microseconds", kMaxFloorUs));
  app.add_option("--alpha", a.alpha, "Significance level of the two-sided Mann-Whitney U test")
      ->option_text("P")
      ->group(kGateGroup);
  app.add_option("--filter", a.filter, "Cases to compare: key=value, key!=value, key>=number, comma-separated")
      ->option_text("RULES")
      ->group(kGateGroup);
  app.add_option("--candidates", a.candidates, "The last N files are the candidate's runs")
      ->option_text("N")
      ->group(kGateGroup)
      ->check(in_range(1, kMaxCandidateRuns));
  app.add_flag("--allow-missing", a.allow_missing, "Pass baseline cases the candidate lacks (by default: exit 7)")
      ->group(kGateGroup);
  app.add_flag("--threshold-only", a.threshold_only, "No test: judge by threshold, floor and run extremes (reports)")
      ->group(kGateGroup);
}

// The interleaved runs: the two commands, how many rounds, how long each may take, where their output stays.
void add_interleaved_options(CLI::App& app, InterleavedPlan& o) {
  app.add_option("--run-baseline", o.baseline_command, "Command measuring the baseline ({report}: where its JSON goes)")
      ->option_text("CMD")
      ->group(kInterleavedGroup);
  app.add_option("--run-candidate", o.candidate_command, "Command measuring the candidate")
      ->option_text("CMD")
      ->group(kInterleavedGroup);
  app.add_option("--rounds", o.rounds, "Baseline-candidate rounds (ABBA); 8 or more to judge")
      ->option_text("N")
      ->group(kInterleavedGroup)
      ->check(in_range(1, 1000));
  app.add_option("--run-timeout", o.run_timeout_s, "Seconds each run may take before it is ended")
      ->option_text("SECONDS")
      ->group(kInterleavedGroup)
      ->check(positive_number("seconds", kMaxRunTimeoutSeconds));
  app.add_option("--runs-dir", o.runs_dir, "Keep the runs' reports and output in this new or empty folder")
      ->option_text("DIR")
      ->default_str("a new one in $TMPDIR")
      ->group(kInterleavedGroup)
      ->check(non_empty_path());
}

// Which view of the comparison, and where it goes.
void add_compare_output_options(CLI::App& app, CompareArgs& a) {
  app.add_option("--format", a.format, "text, md (markdown), json, junit or html")
      ->option_text("FORMAT")
      ->group(groups::kOutput)
      ->transform(one_of({"text", "markdown", "json", "junit", "html"}, {{"md", "markdown"}}));
  app.add_option("-o,--output", a.output, "Write it to this file (atomically) instead of stdout")
      ->option_text("PATH")
      ->group(groups::kOutput)
      ->check(non_empty_path());
}

}  // namespace

void add_compare_command(CLI::App& root, Commands& commands) {
  auto* app = root.add_subcommand("compare", "Compare baseline reports with a candidate: the CI regression gate");
  app->group("Reports and tools");
  app->footer(help_footer("More: docs/compare.md, 'Usage'; interleaved runs: docs/compare.md, 'Interleaved A/B'.",
                          compare_exit_code_lines()));
  auto a = std::make_shared<CompareArgs>();
  app->add_option("REPORTS", a->files, "BASELINE.json... CANDIDATE.json... (a run each; 5 a side at --alpha 0.01)")
      ->check(non_empty_path());
  add_gate_options(*app, *a);
  add_interleaved_options(*app, a->interleaved);
  add_compare_output_options(*app, *a);
  commands.push_back({app, [a, app](Invocation& inv) { return run_compare(*a, *app, inv); }, gate_exit_code_of_error});
}

}  // namespace distbench::cli
