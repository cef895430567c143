// `distbench report FILE [--format md|csv|html] [--output PATH]`: a view of a JSON report, on stdout or written
// atomically to a file. Needs no other process: MPI is never started.
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/report_file.hpp"
#include "core/text_file.hpp"
#include "views/report_views.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

namespace distbench::cli {
namespace {

using View = std::string (*)(const ParsedReport&);

// One entry per format: its --format name and the view that renders it.
struct Format {
  const char* name;
  View view;
};
constexpr Format kFormats[] = {{"md", report_markdown}, {"csv", report_csv}, {"html", report_html}};

struct ReportOptions {
  std::string path;
  std::string format = "md";
  std::string output;  // "": stdout
};

void setup_report(CLI::App& app, ReportOptions& opts) {
  app.add_option("FILE", opts.path, "a JSON report written by distbench (--json)")->required()->check(non_empty_path());
  std::vector<std::string> names;
  for (const Format& f : kFormats) names.emplace_back(f.name);
  app.add_option("--format", opts.format, "md (a table), csv (the --csv columns) or html (a page with plots)")
      ->option_text("FORMAT")
      ->group(groups::kOutput)
      ->transform(one_of(names, {{"markdown", "md"}}));
  app.add_option("--output", opts.output, "Write the view to this file (atomically) instead of stdout")
      ->option_text("PATH")
      ->group(groups::kOutput)
      ->check(non_empty_path());
}

View view_of(const std::string& format) {
  for (const Format& f : kFormats) {
    if (format == f.name) return f.view;
  }
  throw usage_error(fmt::format("unknown report format '{}': use md, csv or html", format));  // CLI11 checked it
}

int run_report(const ReportOptions& opts) {
  if (!opts.output.empty()) {
    check_writable(opts.output);
    check_distinct_files({{"--output", opts.output}}, {{"the report", opts.path}});
  }
  const ParsedReport report = read_report_file(opts.path);
  const std::string view = view_of(opts.format)(report);
  if (opts.output.empty()) {
    write_stdout(view);
  } else {
    write_file_atomically(opts.output, view);
  }
  return 0;
}

}  // namespace

void add_report_command(CLI::App& root, Commands& commands) {
  auto opts = std::make_shared<ReportOptions>();
  auto* app = root.add_subcommand("report", "Show a JSON report as Markdown, CSV or an HTML page with plots");
  app->group("Reports and tools");
  app->footer(help_footer("More: docs/reports.md, 'Reports and schema'.",
                          exit_code_lines({ExitCode::ok, ExitCode::failure, ExitCode::usage}, false)));
  setup_report(*app, *opts);
  commands.push_back(Command{app, [opts](Invocation&) { return run_report(*opts); }});
}

}  // namespace distbench::cli
