// `distbench history`: runs kept in an SQLite file (src/history, docs/history.md). This file adds the command, its
// `ingest` (distbench reports, nccl-tests' text and JSON) and the options every subcommand shares; the others are
// added by history_browse.cpp and history_gate.cpp.
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/history_parts.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/sys/quote.hpp"
#include "history/history_db.hpp"
#include "history/ingest.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <memory>

namespace distbench::cli {
namespace {

constexpr double kMaxLockTimeoutSeconds = 86'400;  // a day

struct IngestArgs {
  HistoryFile file;
  std::vector<std::string> inputs;
  std::string format = "auto";
  history::IngestOptions options;
};

// Every file read and checked first, so that a bad one among many adds nothing; then each run in its own
// transaction.
int run_history_ingest(IngestArgs& a) {
  a.options.format = history::parse_source_format(a.format);
  std::vector<history::RunToStore> runs;
  for (const std::string& path : a.inputs)
    runs.push_back(history::read_run(history::read_source_file(path), a.options));
  history::HistoryDb db(a.file.path, true, a.file.lock_timeout_s);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto id = db.ingest(runs[i]);
    if (id) {
      fmt::print("{}: run {}, {} cases ({})\n", escape_text(a.inputs[i]), *id, runs[i].cases.size(),
                 runs[i].meta.source_format);
    } else {
      fmt::print("{}: already in the history (the same content); nothing added\n", escape_text(a.inputs[i]));
    }
  }
  return static_cast<int>(ExitCode::ok);
}

void add_history_ingest(CLI::App& history, Commands& commands) {
  auto* app = history.add_subcommand("ingest", "Add reports or nccl-tests' output to the history (made if absent)");
  app->footer(history_footer());
  auto a = std::make_shared<IngestArgs>();
  add_history_file_options(*app, a->file);
  app->add_option("FILES", a->inputs, "distbench JSON reports, nccl-tests' text logs or -J JSON files")
      ->required()
      ->check(non_empty_path());
  app->add_option("--label", a->options.label, "What the runs were (default: each file's name)")->option_text("WORDS");
  app->add_option("--commit", a->options.commit, "The commit the runs measured")->option_text("SHA");
  app->add_option("--machine", a->options.machine, "The kind of machine (default: CPU model / device of the run)")
      ->option_text("NAME");
  app->add_option("--format", a->format, "auto, distbench, nccl-tests or nccl-tests-json")
      ->option_text("FORMAT")
      ->check(one_of({"auto", "distbench", "nccl-tests", "nccl-tests-json"}));
  app->add_option("--collective", a->options.collective, "nccl-tests' text without its program's name: which one")
      ->option_text("NAME");
  commands.push_back({app, [a](Invocation&) { return run_history_ingest(*a); }});
}

}  // namespace

void add_history_file_options(CLI::App& app, HistoryFile& file) {
  app.add_option("DB", file.path, "The history's file (SQLite)")->required()->check(non_empty_path());
  app.add_option("--lock-timeout", file.lock_timeout_s, "Seconds to wait while another process writes the history")
      ->option_text("SECONDS")
      ->check(positive_number("seconds", kMaxLockTimeoutSeconds));
}

std::string history_footer() {
  return help_footer("More: docs/history.md, 'Commands'.",
                     exit_code_lines({ExitCode::ok, ExitCode::failure, ExitCode::usage}, false));
}

void add_history_command(CLI::App& root, Commands& commands) {
  auto* app = root.add_subcommand("history", "Keep runs in a history (SQLite) and check each case's series over time");
  app->group("Reports and tools");
  app->require_subcommand(1);
  app->footer(help_footer("More: docs/history.md.", compare_exit_code_lines()));
  add_history_ingest(*app, commands);
  add_history_browse_commands(*app, commands);
  add_history_check_command(*app, commands);
}

}  // namespace distbench::cli
