// `distbench zero`: ZeRO stages 0-3 (benchmarks/zero), run by the runner; the options it has no use for are said
// once to be ignored.
#include "benchmarks/zero/zero_benchmark.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "cli/runner.hpp"
#include "cli/validators.hpp"
#include "cli/zero_options.hpp"
#include "core/sys/text_file.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <memory>
#include <vector>

namespace distbench::cli {
namespace {

// Options that mean nothing for the plan the options and --config made. (Those it never uses, --show-faults, -m and
// -G, the sweep's loop, it does not declare: its table has no fault columns, it calls each collective once.)
std::vector<UnusedOption> zero_unused_by(const zero::ZeroPlan& plan) {
  std::vector<UnusedOption> out;
  if (!plan.check) out.push_back({"--check-steps", "it counts the steps --check runs; add --check"});
  if (std::none_of(plan.stages.begin(), plan.stages.end(), [](zero::Stage s) { return s == zero::Stage::s1; })) {
    out.push_back({"--zero1-reduce", "it is stage 1's, and --stage runs no stage 1"});
  }
  return out;
}

}  // namespace

void add_zero_command(CLI::App& root, Commands& commands) {
  auto* app = root.add_subcommand(
      "zero", "One ZeRO optimizer step, stages 0-3: time, bytes sent and memory, beside the paper's formulas");
  app->group("Benchmarks");
  app->footer(help_footer("More: docs/zero.md, 'Usage'; the common options: docs/collectives.md, 'Options'.",
                          exit_code_lines({ExitCode::ok, ExitCode::failure, ExitCode::usage, ExitCode::wrong_results,
                                           ExitCode::timeout, ExitCode::unavailable},
                                          true)));
  auto o = std::make_shared<ZeroOptions>();
  o->sampling.warmup_iters = 2;
  const char* step = "ZeRO step";
  app->add_option("--stage", o->stage, "0 (data parallel), 1, 2, 3 or all")->option_text("STAGE")->group(step);
  app->add_option("--params", o->params, "Ψ, the model's parameters; 1K = 1024")->option_text("COUNT")->group(step);
  app->add_option("--layers", o->layers, "Tensors of the parameters; stage 3 gathers one at a time")
      ->option_text("N")
      ->group(step);
  app->add_option("--dtype", o->dtype, "Parameter and gradient type: bf16, fp16 or fp32")
      ->option_text("TYPE")
      ->group(step);
  add_bucket_option(*app, o->bucket_mb, "Gradients per reduction, stages 0-2", "one bucket", step);
  app->add_option("--zero1-reduce", o->zero1_reduce,
                  "Stage 1 reduces by allreduce (3x the gradients' bytes), reduce-scatter (2x) or both")
      ->option_text("HOW")
      ->default_str("auto: both with --stage all, else allreduce")
      ->group(step);
  app->add_option("--config", o->config, "JSON file of settings (zero_opt_level, ...); options given win over it")
      ->option_text("PATH")
      ->group(step)
      ->check(non_empty_path());
  add_sampling_options(*app, o->sampling);
  app->get_option("--iters")->description("Timed samples per stage");
  app->get_option("--warmup-iters")->description("Untimed steps first");
  add_common_options(*app, o->common);
  add_per_rank_options(*app, o->per_rank);
  app->add_flag("--check", o->check, "First compare every stage with a one-rank run, bit for bit (exit 3)")
      ->group(groups::kVerification);
  app->add_option("--check-steps", o->check_steps, "Steps --check runs before comparing")
      ->option_text("N")
      ->group(groups::kVerification);
  commands.push_back({app, [o, app](Invocation& inv) {
                        ZeroOptions options = *o;
                        for (const char* name : {"--stage", "--params", "--layers", "--dtype", "--bucket-mb",
                                                 "--zero1-reduce", "--check"}) {
                          if (app->count(name) > 0) options.given.insert(name);
                        }
                        if (app->count("--bucket") > 0) options.given.insert("--bucket-mb");  // either spelling
                        const std::string text =
                            options.config.empty()
                                ? std::string()
                                : read_text_file(options.config, "--config file", kSmallTextFileMaxBytes);
                        const zero::ZeroPlan plan = make_zero_plan(options, text);  // bad input fails before MPI
                        RunSettings settings = run_settings(options.common, *app);
                        settings.ignored_options = given_but_unused(*app, zero_unused_by(plan));
                        zero::ZeroBenchmark benchmark(plan);
                        return run_benchmark(inv, settings, benchmark);
                      }});
}

}  // namespace distbench::cli
