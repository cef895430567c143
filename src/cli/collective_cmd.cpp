// `distbench <collective>`: one subcommand per collective, each showing the options that apply to it, run by the
// runner.
#include "benchmarks/collective/collective_benchmark.hpp"
#include "cli/collective_options.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/nccl_tests_spellings.hpp"
#include "cli/runner.hpp"

#include <CLI/CLI.hpp>

#include <memory>

namespace distbench::cli {

void add_collective_commands(CLI::App& root, Commands& commands) {
  for (Collective c : all_collectives()) {
    auto* app = root.add_subcommand(std::string(name(c)), std::string(traits(c).description));
    app->group("Collectives");
    app->footer(help_footer("More: docs/collectives.md, 'Options'; docs/methods.md, 'What is measured'.",
                            exit_code_lines({ExitCode::ok, ExitCode::failure, ExitCode::usage, ExitCode::wrong_results,
                                             ExitCode::timeout, ExitCode::unavailable, ExitCode::below_floor},
                                            true)));
    auto options = std::make_shared<CollectiveOptions>();
    add_collective_options(*app, *options, c);
    commands.push_back({app, [c, options, app](Invocation& inv) {
                          // bad input fails here, before MPI
                          collective::SweepPlan plan = make_plan(c, *options);
                          if (auto note = short_json_note(inv.arguments())) plan.ignored_options.push_back(*note);
                          collective::CollectiveBenchmark benchmark(std::move(plan));
                          return run_benchmark(inv, run_settings(collective_common(*options), *app), benchmark);
                        }});
  }
}

}  // namespace distbench::cli
