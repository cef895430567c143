// `distbench zero`: ZeRO stages 0-3 (benchmarks/zero), run by the runner.
#include "benchmarks/zero/zero_benchmark.hpp"
#include "cli/command.hpp"
#include "cli/validators.hpp"
#include "cli/runner.hpp"
#include "cli/zero_options.hpp"
#include "core/text_file.hpp"

#include <CLI/CLI.hpp>

#include <memory>

namespace distbench::cli {

void add_zero_command(CLI::App& root, Commands& commands) {
  auto* app = root.add_subcommand(
      "zero",
      "One ZeRO optimizer step, stages 0-3: time per phase, bytes sent and memory held, beside the paper's "
      "formulas; --check proves each stage bit-identical to a single-rank run");
  auto o = std::make_shared<ZeroOptions>();
  o->common.warmup_iters = 2;
  app->add_option("--stage", o->stage, "0 (data parallel), 1, 2, 3 or all");
  app->add_option("--params", o->params, "Ψ, the model's parameters (K, M, G suffixes are binary)");
  app->add_option("--layers", o->layers, "Tensors the parameters come in (stage 3 gathers one at a time)");
  app->add_option("--dtype", o->dtype, "Parameter and gradient type: bf16, fp16 (fp32 master weights) or fp32");
  app->add_option("--bucket-mb", o->bucket_mb, "MiB of gradients reduced at once, stages 0-2 (0: all at once)");
  app->add_option("--zero1-reduce", o->zero1_reduce,
                  "Stage 1's gradient reduction: allreduce (the seeds' and RAF's, 3 x the gradients' bytes), "
                  "reduce-scatter (DeepSpeed's ZeRO-1 and the paper's, 2 x), both (a row each), or auto (default: "
                  "both with --stage all, else allreduce)");
  app->add_flag("--check", o->check,
                "First run a few steps with exact gradients and compare every stage with a single-rank run, bit for "
                "bit (exit 3 and the first differing element if one differs)");
  app->add_option("--check-steps", o->check_steps, "Steps --check runs before comparing");
  app->add_option("--config", o->config,
                  "JSON file of settings: zero_opt_level, enable_data_parallel and the options' names (stage, params, "
                  "layers, dtype, bucket_mb, zero1_reduce, check); options on the command line win")->check(non_empty_path());
  add_common_options(*app, o->common);
  commands.push_back({app, [o, app](Invocation& inv) {
                        ZeroOptions options = *o;
                        for (const char* name : {"--stage", "--params", "--layers", "--dtype", "--bucket-mb",
                                                 "--zero1-reduce", "--check"}) {
                          if (app->count(name) > 0) options.given.insert(name);
                        }
                        const std::string text =
                            options.config.empty() ? std::string() : read_text_file(options.config, "--config file", kSmallTextFileMaxBytes);
                        zero::ZeroBenchmark benchmark(make_zero_plan(options, text));  // bad input fails before MPI
                        return run_benchmark(inv, run_settings(options.common), benchmark);
                      }});
}

}  // namespace distbench::cli
