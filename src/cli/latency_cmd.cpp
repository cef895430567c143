// `distbench latency`: ping-pong between rank pairs (benchmarks/latency), run by the runner.
#include "benchmarks/latency/latency_benchmark.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "cli/per_rank_options.hpp"
#include "cli/runner.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/measure/sizes.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <memory>
#include <vector>

namespace distbench::cli {
namespace {

struct LatencyOptions {
  std::string minbytes = "1";
  std::string maxbytes = "4M";  // OSU's osu_latency range
  double stepfactor = 2.0;
  int check = 1;
  SamplingOptions sampling;
  CommonOptions common;
  PerRankOptions per_rank;
};

latency::LatencyPlan make_latency_plan(const LatencyOptions& o) {
  if (!(o.stepfactor > 1.0)) {
    throw usage_error(fmt::format("-f/--stepfactor {:g} must be greater than 1", o.stepfactor));
  }
  latency::LatencyPlan plan;
  plan.sizes = size_sweep(parse_size_option("-b/--minbytes", o.minbytes),
                          parse_size_option("-e/--maxbytes", o.maxbytes), o.stepfactor, 0);
  plan.warmup_iters = o.sampling.warmup_iters;
  plan.stopping = stopping_rule(o.sampling);
  // osu_latency's round trips unless the user chose: -w the warm-up; -n, --max-noise or --max-time the samples
  plan.osu_warmup = !o.sampling.warmup_given;
  plan.osu_timed = !(o.sampling.iters_given || o.sampling.max_noise > 0 || o.sampling.max_time_given);
  plan.check = o.check != 0;
  plan.timeout_s = o.common.timeout_s;
  plan.per_rank = o.per_rank;
  return plan;
}

}  // namespace

void add_latency_command(CLI::App& root, Commands& commands) {
  auto* app = root.add_subcommand("latency", "One-way message latency between rank pairs (ping-pong, as OSU)");
  app->group("Benchmarks");
  app->footer(help_footer("More: docs/latency.md; the common options: docs/collectives.md, 'Options'.",
                          exit_code_lines({ExitCode::ok, ExitCode::failure, ExitCode::usage, ExitCode::wrong_results,
                                           ExitCode::timeout, ExitCode::unavailable},
                                          true)));
  auto o = std::make_shared<LatencyOptions>();
  // No sweep loop options (--show-faults, -m, -G): its table has no fault columns, it sends one message at a time.
  add_sampling_options(*app, o->sampling);
  app->get_option("--warmup-iters")->description("Untimed round trips first");
  add_common_options(*app, o->common);
  add_per_rank_options(*app, o->per_rank);
  app->add_option("-b,--minbytes", o->minbytes, "Smallest message in bytes; 1K = 1024, 1.5M, 1MiB")
      ->option_text("SIZE")
      ->group(groups::kSweep);
  app->add_option("-e,--maxbytes", o->maxbytes, "Largest message in bytes")->option_text("SIZE")->group(groups::kSweep);
  app->add_option("-f,--stepfactor", o->stepfactor, "Multiply the size by X (> 1) between steps")
      ->option_text("X")
      ->group(groups::kSweep);
  app->add_option("-c,--check", o->check, "1: check every message against its sender's data; 0: none")
      ->option_text("0|1")
      ->group(groups::kVerification)
      ->check(one_of({"0", "1"}));
  commands.push_back({app, [o, app](Invocation& inv) {
                        latency::LatencyBenchmark benchmark(make_latency_plan(*o));  // bad input fails here, before MPI
                        return run_benchmark(inv, run_settings(o->common, *app), benchmark);
                      }});
}

}  // namespace distbench::cli
