// `distbench health`: the cluster check (benchmarks/health), run by the runner, with exit codes as monitoring
// systems read them: 0 healthy, 1 degraded, 2 failed, 3 unknown (bad input, or the check could not run).
#include "benchmarks/health/health_benchmark.hpp"
#include "cli/command.hpp"
#include "cli/validators.hpp"
#include "cli/runner.hpp"
#include "core/error.hpp"
#include "core/sizes.hpp"
#include "core/text_file.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>

namespace distbench::cli {
namespace {

struct HealthOptions {
  std::string backend = "auto";
  double timeout_s = 30.0;
  std::string json, csv, md, prom;
  std::string rules;
  double expect_busbw = 0;
  std::string memory_bytes = "256M";
  std::string allreduce_bytes = "8M";
  std::string link_bytes = "1M";
  double tolerance_pct = 25;
};

health::HealthPlan make_health_plan(const HealthOptions& o) {
  health::HealthPlan plan;
  if (!(o.timeout_s > 0)) throw usage_error(fmt::format("--timeout {:g} must be more than 0 seconds", o.timeout_s));
  plan.timeout_s = o.timeout_s;
  plan.memory_bytes = parse_size_option("--memory-bytes", o.memory_bytes);
  plan.allreduce_bytes = parse_size_option("--allreduce-bytes", o.allreduce_bytes);
  plan.link_message_bytes = parse_size_option("--link-bytes", o.link_bytes);
  for (const auto& [what, bytes] :
       {std::pair{"--memory-bytes", plan.memory_bytes}, std::pair{"--allreduce-bytes", plan.allreduce_bytes},
        std::pair{"--link-bytes", plan.link_message_bytes}}) {
    if (bytes < 8) throw usage_error(fmt::format("{} must be at least 8 bytes", what));
  }
  plan.copy_bytes = std::min(plan.copy_bytes, plan.memory_bytes / 2);
  if (o.expect_busbw < 0) throw usage_error("--expect-busbw must be a bandwidth in GB/s, more than 0");
  if (o.expect_busbw > 0) plan.expect_busbw_gbps = o.expect_busbw;
  if (!(o.tolerance_pct > 0 && o.tolerance_pct < 100)) {
    throw usage_error(fmt::format("--tolerance {:g}% must be more than 0% and less than 100% (25%: a quarter below the "
                                  "median)",
                                  o.tolerance_pct));
  }
  plan.bandwidth.tolerance = o.tolerance_pct / 100;
  if (!o.rules.empty()) plan.rules = health::parse_rules(read_text_file(o.rules, "rules file", kSmallTextFileMaxBytes), o.rules);
  plan.rules_path = o.rules;
  plan.prom_path = o.prom;
  return plan;
}

}  // namespace

void add_health_command(CLI::App& root, Commands& commands) {
  auto* app =
      root.add_subcommand("health",
                          "Cluster check: per-rank, per-node, whole-job and pairwise link tests; a verdict per node "
                          "(exit 0 healthy, 1 degraded, 2 failed, 3 unknown)");
  auto o = std::make_shared<HealthOptions>();
  app->add_option("--backend", o->backend, "auto (nccl when a GPU is visible and built in, else mpi), mpi or nccl");
  app->add_option("-T,--timeout", o->timeout_s,
                  "Seconds each phase may take; ranks that have not arrived by then are named (TIMEOUT)");
  app->add_option("--rules", o->rules,
                  "JSON file of absolute rules for a known cluster type (see docs/health.md, 'Health rules')")->check(non_empty_path());
  app->add_option("--expect-busbw", o->expect_busbw, "The whole job's allreduce must reach this bus bandwidth (GB/s)");
  app->add_option("--tolerance", o->tolerance_pct,
                  "A bandwidth this far below the cluster's median (and 4 MADs) is degraded, e.g. 25%")
      ->transform(percentage(0, 100));
  app->add_option("--memory-bytes", o->memory_bytes,
                  "Memory each rank allocates and touches (at most a quarter of "
                  "what is free)");
  app->add_option("--allreduce-bytes", o->allreduce_bytes, "Size of the per-node and whole-job allreduce");
  app->add_option("--link-bytes", o->link_bytes, "Message size of the pairwise bandwidth test (4 in flight)");
  app->add_option("--json", o->json, "Write a JSON report here (rewritten after every phase)")->check(non_empty_path());
  app->add_option("--csv", o->csv, "Write a CSV report here")->check(non_empty_path());
  app->add_option("--md", o->md, "Write a Markdown report here")->check(non_empty_path());
  app->add_option("--prom", o->prom,
                  "Write Prometheus text here for node-exporter's textfile collector (e.g. "
                  "/var/lib/prometheus/node-exporter/distbench.prom; written atomically)")->check(non_empty_path());
  commands.push_back({app,
                      [o](Invocation& inv) {
                        health::HealthBenchmark benchmark(make_health_plan(*o));  // bad input fails before MPI
                        RunSettings s;
                        s.backend = o->backend;
                        s.backend_options.timeout_s = o->timeout_s;
                        // The watchdog is the backstop behind the phases' own bounds: a phase, its grace
                        // periods, and the verdict.
                        s.timeout_s = 3 * o->timeout_s + 30;
                        s.timeout_exit_code = static_cast<int>(health::Status::unknown);
                        s.interrupted_exit_code = static_cast<int>(health::Status::unknown);
                        s.json_path = o->json;
                        s.csv_path = o->csv;
                        s.md_path = o->md;
                        return run_benchmark(inv, s, benchmark);
                      },
                      [](ExitCode) { return static_cast<int>(health::Status::unknown); }});
}

}  // namespace distbench::cli
