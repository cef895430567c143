// `distbench latency`: ping-pong between rank pairs (benchmarks/latency), run by the runner.
#include "benchmarks/latency/latency_benchmark.hpp"
#include "cli/command.hpp"
#include "cli/runner.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/sizes.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>

namespace distbench::cli {
namespace {

struct LatencyOptions {
  std::string minbytes = "1";
  std::string maxbytes = "4M";  // OSU's osu_latency range
  double stepfactor = 2.0;
  int check = 1;
  CommonOptions common;
};

LatencyPlan make_latency_plan(const LatencyOptions& o) {
  if (!(o.stepfactor > 1.0)) {
    throw usage_error(fmt::format("-f/--stepfactor {:g} must be greater than 1", o.stepfactor));
  }
  LatencyPlan plan;
  plan.sizes = size_sweep(parse_size_option("-b/--minbytes", o.minbytes), parse_size_option("-e/--maxbytes", o.maxbytes), o.stepfactor, 0);
  plan.warmup_iters = o.common.warmup_iters;
  plan.stopping = stopping_rule(o.common);
  plan.check = o.check != 0;
  plan.timeout_s = o.common.timeout_s;
  return plan;
}

}  // namespace

void add_latency_command(CLI::App& root, Commands& commands) {
  auto* app = root.add_subcommand("latency", "One-way message latency between rank pairs (ping-pong, as OSU)");
  auto o = std::make_shared<LatencyOptions>();
  app->add_option("-b,--minbytes", o->minbytes, "Smallest message in bytes (K, M, G suffixes are binary)");
  app->add_option("-e,--maxbytes", o->maxbytes, "Largest message in bytes");
  app->add_option("-f,--stepfactor", o->stepfactor, "Multiply the size by this factor between steps (> 1)");
  app->add_option("-c,--check", o->check, "Verify every message against its sender's data (0 or 1)")
      ->check(one_of({"0", "1"}));
  add_common_options(*app, o->common);
  commands.push_back({app, [o](Invocation& inv) {
                        LatencyBenchmark benchmark(make_latency_plan(*o));  // bad input fails here, before MPI
                        return run_benchmark(inv, run_settings(o->common), benchmark);
                      }});
}

}  // namespace distbench::cli
