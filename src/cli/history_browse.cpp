// `distbench history list | runs | show | export`: what the history holds, read only.
#include "cli/command.hpp"
#include "cli/history_parts.hpp"
#include "cli/option_groups.hpp"
#include "cli/validators.hpp"
#include "compare/case_filter.hpp"
#include "core/error.hpp"
#include "core/report/atomic_file.hpp"
#include "core/sys/text_file.hpp"
#include "history/history_db.hpp"
#include "history/history_text.hpp"
#include "history/series_filter.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <memory>

namespace distbench::cli {
namespace {

struct BrowseArgs {
  HistoryFile file;
  std::string format = "text";
  std::vector<std::string> series;  // show: keys
  std::string filter;               // show, export
  std::string output;               // export
};

// The series the command names (keys, --filter); the filter is read before the history is opened, so that a rule
// that does not parse is named as such whatever the file.
std::vector<history::Series> chosen_series(const BrowseArgs& a) {
  const std::vector<compare::Condition> filter = compare::parse_filter(a.filter);
  history::HistoryDb db(a.file.path, false, a.file.lock_timeout_s);
  history::SeriesQuery q;
  q.keys = a.series;
  return history::filtered(db.series(q, true), filter);
}

int run_history_list(const BrowseArgs& a) {
  const std::vector<history::Series> all = chosen_series(a);
  write_stdout(a.format == "json" ? history::series_list_json(all) : history::series_list_text(all));
  return 0;
}

int run_history_runs(const BrowseArgs& a) {
  history::HistoryDb db(a.file.path, false, a.file.lock_timeout_s);
  const std::vector<history::RunRow> runs = db.runs();
  write_stdout(a.format == "json" ? history::runs_json(runs) : history::runs_text(runs));
  return 0;
}

int run_history_show(const BrowseArgs& a) {
  if (a.series.empty() && a.filter.empty()) {
    throw usage_error("history show needs a series' key (history list --format json shows them) or --filter RULES");
  }
  const std::vector<history::Series> chosen = chosen_series(a);
  if (chosen.empty()) throw usage_error("no series matches; `distbench history list` shows them");
  write_stdout(history::series_points_text(chosen));
  return 0;
}

int run_history_export(const BrowseArgs& a) {
  if (!a.output.empty()) {
    check_writable(a.output);
    check_distinct_files({{"--output", a.output}}, {{"the history", a.file.path}});
  }
  const std::vector<history::Series> chosen = chosen_series(a);
  const std::vector<history::RunRow> runs = history::HistoryDb(a.file.path, false, a.file.lock_timeout_s).runs();
  const std::string text = a.format == "json" ? history::export_json(chosen, runs) : history::export_csv(chosen, runs);
  if (a.output.empty()) {
    write_stdout(text);
  } else {
    write_file_atomically(a.output, text, Durability::disk);
  }
  return 0;
}

void add_filter_option(CLI::App& app, BrowseArgs& a) {
  app.add_option("--filter", a.filter, "Series whose case matches: key=value, key!=value, key>=number, comma-separated")
      ->option_text("RULES");
}

void add_format_option(CLI::App& app, BrowseArgs& a, std::vector<std::string> formats) {
  const std::string help = fmt::format("{} or {}", formats.front(), formats.back());
  app.add_option("--format", a.format, help)->option_text("FORMAT")->group(groups::kOutput)->check(one_of(formats));
}

}  // namespace

void add_history_browse_commands(CLI::App& history, Commands& commands) {
  auto list = std::make_shared<BrowseArgs>();
  auto* app = history.add_subcommand("list", "The series: each case's label, group, runs and newest time");
  app->footer(history_footer());
  add_history_file_options(*app, list->file);
  add_filter_option(*app, *list);
  add_format_option(*app, *list, {"text", "json"});
  commands.push_back({app, [list](Invocation&) { return run_history_list(*list); }});

  auto runs = std::make_shared<BrowseArgs>();
  app = history.add_subcommand("runs", "The runs: id, time, label, commit, machine, cases");
  app->footer(history_footer());
  add_history_file_options(*app, runs->file);
  add_format_option(*app, *runs, {"text", "json"});
  commands.push_back({app, [runs](Invocation&) { return run_history_runs(*runs); }});

  auto show = std::make_shared<BrowseArgs>();
  app = history.add_subcommand("show", "One or more series' points, oldest first");
  app->footer(history_footer());
  add_history_file_options(*app, show->file);
  app->add_option("SERIES", show->series, "Series keys, as the JSON of history list gives them");
  add_filter_option(*app, *show);
  commands.push_back({app, [show](Invocation&) { return run_history_show(*show); }});

  auto exported = std::make_shared<BrowseArgs>();
  exported->format = "csv";
  app = history.add_subcommand("export", "Every point with its run's metadata, as CSV or JSON");
  app->footer(history_footer());
  add_history_file_options(*app, exported->file);
  add_filter_option(*app, *exported);
  add_format_option(*app, *exported, {"csv", "json"});
  app->add_option("-o,--output", exported->output, "Write it to this file (atomically) instead of stdout")
      ->option_text("PATH")
      ->group(groups::kOutput)
      ->check(non_empty_path());
  commands.push_back({app, [exported](Invocation&) { return run_history_export(*exported); }});
}

}  // namespace distbench::cli
