// `distbench compare BASELINE... CANDIDATE`: the CI regression gate (src/compare). Exit 0: no regression; 1: at least
// one case SLOWER; 2: bad input or reports that cannot be compared; 7: the gate could not judge (nothing compared,
// cases missing from the candidate, a report that did not complete): it fails closed.
#include "cli/command.hpp"
#include "cli/validators.hpp"
#include "compare/compare_views.hpp"
#include "compare/comparison.hpp"
#include "core/report/report_file.hpp"
#include "core/error.hpp"
#include "core/report/atomic_file.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cmath>
#include <iostream>
#include <memory>

namespace distbench::cli {
namespace {

struct CompareArgs {
  std::vector<std::string> files;
  std::string metric = "time";
  std::string threshold = "5%";
  double floor_us = 1.0;
  double alpha = 0.01;
  std::string filter;
  std::string format = "text";
  std::string output;
  int candidates = 1;
  bool allow_missing = false;
};

// "5%", "5" (both 5 percent) or "0.5%".
double parse_threshold(std::string text) {
  if (!text.empty() && text.back() == '%') text.pop_back();
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && v >= 0 && std::isfinite(v)) return v / 100;
  } catch (const std::exception&) {
  }
  throw usage_error(fmt::format("--threshold {}: give a percentage, e.g. --threshold 5%", text));
}

int run_compare(const CompareArgs& a) {
  if (a.candidates < 1) throw usage_error("--candidates must be 1 or more");
  if (a.files.size() < static_cast<std::size_t>(a.candidates) + 1) {
    throw usage_error(fmt::format("compare needs a baseline report and {} (BASELINE... CANDIDATE...; --candidates {} "
                                  "takes the last {} files as the candidate's runs)",
                                  a.candidates == 1 ? "a candidate report" : "the candidate's reports", a.candidates,
                                  a.candidates));
  }
  CompareOptions options;
  options.metric = parse_compare_metric(a.metric);
  options.threshold = parse_threshold(a.threshold);
  if (!(a.floor_us >= 0)) throw usage_error("--floor-us must be 0 or more microseconds");
  if (!(a.alpha > 0 && a.alpha < 0.5)) throw usage_error(fmt::format("--alpha {:g}: give a level in (0, 0.5), e.g. 0.01", a.alpha));
  options.floor_us = a.floor_us;
  options.alpha = a.alpha;
  options.filter = parse_filter(a.filter);
  options.allow_missing = a.allow_missing;
  if (!a.output.empty()) check_writable(a.output);

  const std::size_t first_candidate = a.files.size() - static_cast<std::size_t>(a.candidates);
  std::vector<ParsedReport> baselines, candidates;
  for (std::size_t i = 0; i < a.files.size(); ++i) {
    (i < first_candidate ? baselines : candidates).push_back(read_report_file(a.files[i]));
  }
  const Comparison c = compare_reports(baselines, candidates, options);

  CompareSources sources{{a.files.begin(), a.files.begin() + static_cast<std::ptrdiff_t>(first_candidate)}, {}};
  for (std::size_t i = first_candidate; i < a.files.size(); ++i) {
    if (!sources.candidate.empty()) sources.candidate += ", ";
    sources.candidate += a.files[i];
  }
  std::string text;
  if (a.format == "text") text = compare_text(c);
  if (a.format == "markdown") text = compare_markdown(c, sources);
  if (a.format == "json") text = compare_json(c, sources);
  if (a.format == "junit") text = compare_junit(c, sources);
  if (a.format == "html") text = compare_html(c, sources);
  if (a.output.empty()) {
    std::cout << text << std::flush;
  } else {
    write_file_atomically(a.output, text, Durability::disk);
    fmt::print("{}: {}\n", c.regressed() ? "REGRESSION" : c.not_judged.empty() ? "OK" : "NOT JUDGED",
               c.summary_line());
  }
  for (const auto& w : c.warnings) fmt::print(stderr, "warning: {}\n", w);
  if (c.regressed()) return static_cast<int>(ExitCode::regression);
  if (!c.not_judged.empty()) {
    fmt::print(stderr, "error: the gate could not judge: {}\n", c.not_judged);
    return static_cast<int>(ExitCode::not_judged);
  }
  return static_cast<int>(ExitCode::ok);
}

}  // namespace

void add_compare_command(CLI::App& root, Commands& commands) {
  auto* app = root.add_subcommand("compare", "Compare baseline reports with a candidate: the CI regression gate");
  auto a = std::make_shared<CompareArgs>();
  app->add_option("reports", a->files, "BASELINE.json [MORE_BASELINES.json ...] CANDIDATE.json (baselines are pooled)")
      ->required()->check(non_empty_path());
  app->add_option("--metric", a->metric, "What to judge: time, busbw or algbw")
      ->check(one_of({"time", "busbw", "algbw"}));
  app->add_option("--threshold", a->threshold, "Relative change that matters, e.g. 5%");
  app->add_option("--floor-us", a->floor_us, "Absolute change of the time per operation that matters (microseconds)");
  app->add_option("--alpha", a->alpha, "Significance level of the two-sided Mann-Whitney U test");
  app->add_option("--filter", a->filter, "Cases to compare: key=value, key!=value, key>=number, comma-separated");
  app->add_option("--format", a->format, "Output: text, markdown, json, junit or html")
      ->check(one_of({"text", "markdown", "json", "junit", "html"}));
  app->add_option("--output", a->output, "Write the output to this file (atomically) instead of stdout")->check(non_empty_path());
  app->add_flag("--allow-missing", a->allow_missing,
                "Let cases of the baseline that the candidate lacks pass (they fail the gate by default: exit 7)");
  app->add_option("--candidates", a->candidates,
                  "How many of the last files are runs of the candidate (pooled; a verdict needs every run of one "
                  "side beyond every run of the other)");
  commands.push_back({app, [a](Invocation&) { return run_compare(*a); }});
}

}  // namespace distbench::cli
