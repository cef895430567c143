// distbench: collective benchmarks over MPI and NCCL. Errors are caught here, once, printed as one line, and mapped
// to the exit codes documented in README.md.
#include "backends/registry.hpp"
#include "cli/command.hpp"
#include "cli/command_table.hpp"
#include "cli/exit_codes.hpp"
#include "cli/help_formatter.hpp"
#include "cli/launcher.hpp"
#include "cli/nccl_tests_spellings.hpp"
#include "cli/parse_errors.hpp"
#include "cli/validators.hpp"
#include "core/comm/backend.hpp"
#include "core/error.hpp"
#include "core/sys/quote.hpp"
#include "core/sys/termination.hpp"
#include "version.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace distbench::cli {

namespace {

// DISTBENCH_DEBUG (set, not 0): an internal failure's error line ends with where it was thrown, for a bug report.
bool wants_error_source(const connectors::EnvLookup& env) {
  const auto value = env("DISTBENCH_DEBUG");
  return value && !value->empty() && *value != "0";
}

int report_error(Invocation& inv, ExitCode error, const std::string& message, const Command* command) {
  const auto code = command != nullptr && command->exit_code_of_error
                        ? static_cast<ExitCode>(command->exit_code_of_error(error))
                        : error;
  Connector* c = inv.connector.get();
  const bool many = c != nullptr && c->size() > 1;
  if (error == ExitCode::usage || error == ExitCode::unavailable) {
    // Found identically by every rank (or agreed on by all): one line, from the first rank. A launch that failed
    // to form a job is each process's own story (which rank clashed, which never came): each says it.
    const bool prints =
        c != nullptr ? c->rank() == 0 : inv.forming_failed || prints_early_errors(connectors::process_environment());
    if (prints) {
      fmt::print(stderr, "error: {}\n", escape_text(message));
    } else if (c != nullptr && c->kind() == "env") {
      // env:// processes each have their own output (torchrun's logs): each that exits non-zero says why
      fmt::print(stderr, "error: rank {}: {}\n", c->rank(), escape_text(message));
    }
    return static_cast<int>(code);
  }
  if (many) {
    fmt::print(stderr, "error: rank {} ({}): {}\n", c->rank(), escape_text(c->hostname()), escape_text(message));
    std::fflush(stderr);
    c->abort(static_cast<int>(code), message);  // the other ranks may be waiting for this one: end the whole job
  }
  fmt::print(stderr, "error: {}\n", escape_text(message));
  return static_cast<int>(code);
}

}  // namespace
}  // namespace distbench::cli

int main(int argc, char** argv) {
  using namespace distbench;
  TerminationSignals signals;  // first: before MPI or anything else starts a thread
  cli::Invocation inv{argc, argv, nullptr, &signals};
  CLI::App app{"distbench: how fast, how correct and how healthy distributed communication is", "distbench"};
  app.formatter(std::make_shared<cli::HelpFormatter>());  // before the subcommands, which inherit it
  app.set_version_flag("-V,--version", fmt::format("distbench {} ({})", kVersion, kGitSha));
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();
  const cli::Commands commands = cli::add_commands(app);
  cli::check_number_types(app);
  app.footer(cli::help_footer("Each command's options: distbench COMMAND --help.", cli::all_exit_code_lines()));

  // The command named on the command line (for its exit-code convention), even when its options do not parse.
  // Once parsed, the command that runs (`history check`, not the first of `history`'s).
  const cli::Command* command = argc > 1 ? cli::find_command(commands, argv[1]) : nullptr;
  // Command lines written for nccl-tests (--warmup_iters, ...) parse as distbench's spellings.
  std::vector<std::string> args = cli::with_distbench_spellings(argc, argv);
  std::vector<char*> arg_ptrs;
  for (std::string& a : args) arg_ptrs.push_back(a.data());
  const int arg_count = static_cast<int>(arg_ptrs.size());
  try {
    cli::check_command_word(app, arg_count, arg_ptrs.data());
    try {
      app.parse(arg_count, arg_ptrs.data());
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      throw usage_error(cli::parse_error_text(app, e));
    }
    for (const auto& c : commands) {
      if (!c.app->parsed()) continue;
      command = &c;
      return c.run(inv);
    }
    throw usage_error("no command given; see 'distbench --help'");
  } catch (const Error& e) {
    // Where an internal failure was thrown ("[core/sys/text_file.cpp:97]") only when asked for: a user's line says
    // what failed and what to do, not the source's layout.
    const bool internal = e.code() == ExitCode::failure && cli::wants_error_source(connectors::process_environment());
    return cli::report_error(inv, e.code(), internal ? fmt::format("{} [{}]", e.what(), e.where()) : e.what(), command);
  } catch (const std::exception& e) {
    return cli::report_error(inv, ExitCode::failure, fmt::format("unexpected failure: {}", e.what()), command);
  }
}
