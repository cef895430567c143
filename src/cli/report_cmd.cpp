// `distbench report FILE [--format FORMAT] [--output PATH]`: a JSON report again in any format a run writes (made in
// memory by that format's reporter, replayed from the records) or as an HTML page, on stdout or written atomically
// to a file. Needs no other process: MPI is never started.
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/replay.hpp"
#include "core/report/report_file.hpp"
#include "core/report/report_formats.hpp"
#include "core/report/report_output.hpp"
#include "core/sys/text_file.hpp"
#include "views/report_views.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace distbench::cli {
namespace {

// The views that are no run's report format: made from the report read back, not replayed.
struct View {
  const char* name;
  std::string (*make)(const ParsedReport&);
};
constexpr View kViews[] = {{"html", views::report_html}};

struct ReportOptions {
  std::string path;
  std::string format = "md";
  std::string output;  // "": stdout
};

// Every report format of a run (core/report/report_formats.hpp), then the views.
std::vector<std::string> format_names() {
  std::vector<std::string> names;
  for (const ReportFormat& f : report_formats()) names.emplace_back(f.name);
  for (const View& v : kViews) names.emplace_back(v.name);
  return names;
}

void setup_report(CLI::App& app, ReportOptions& opts) {
  app.add_option("FILE", opts.path, "a JSON report written by distbench (--json)")->required()->check(non_empty_path());
  const std::vector<std::string> names = format_names();
  std::vector<std::string> shown(names.begin(), names.end() - std::ssize(kViews));
  for (std::string& name : shown) {
    if (name == "md") name = "md (markdown)";  // as compare, history check and model name it
  }
  app.add_option(
         "--format", opts.format,
         fmt::format("{}: what the run's option of that name writes; html: a page with plots", fmt::join(shown, ", ")))
      ->option_text("FORMAT")
      ->group(groups::kOutput)
      ->transform(one_of(names, {{"markdown", "md"}}));
  app.add_option("-o,--output", opts.output, "Write the view to this file (atomically) instead of stdout")
      ->option_text("PATH")
      ->group(groups::kOutput)
      ->check(non_empty_path());
}

void write_view(const ReportOptions& opts, const std::string& view) {
  if (opts.output.empty()) {
    write_stdout(view);
  } else {
    write_file_atomically(opts.output, view);
  }
}

int run_report(const ReportOptions& opts) {
  if (!opts.output.empty()) {
    check_writable(opts.output);
    check_distinct_files({{"--output", opts.output}}, {{"the report", opts.path}});
  }
  const ParsedReport report = read_report_file(opts.path);
  for (const View& v : kViews) {
    if (opts.format == v.name) {
      write_view(opts, v.make(report));
      return 0;
    }
  }
  const ReportFormat* format = find_report_format(opts.format);
  if (format == nullptr) throw usage_error(fmt::format("unknown report format '{}'", opts.format));  // CLI11 checked
  if (!format->benchmark.empty() && format->benchmark != report.benchmark) {
    throw usage_error(fmt::format("--format {} is a {} sweep's; '{}' holds {}'s records: choose another format",
                                  format->name, format->benchmark, opts.path, report.benchmark));
  }
  if (format->name == "md" && !report.has_table()) {
    // A report from before the table was kept (schema versions 1 and 2): its records in a table of their own.
    write_view(opts, views::report_markdown(report));
    return 0;
  }
  // What the run's own reporter of this format wrote, made again by that reporter from the records.
  const std::unique_ptr<FileReporter> reporter = format->make(std::string(kInMemoryReport));
  replay(report, *reporter);
  write_view(opts, reporter->contents());
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
