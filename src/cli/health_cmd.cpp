// `distbench health`: the cluster check (benchmarks/health), run by the runner, with exit codes as monitoring
// systems read them: 0 healthy, 1 degraded, 2 failed, 3 unknown (bad input, or the check could not run).
#include "benchmarks/health/health_benchmark.hpp"
#include "benchmarks/health/link_plan.hpp"
#include "cli/command.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "cli/runner.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/measure/sizes.hpp"
#include "core/sys/text_file.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace distbench::cli {
namespace {

constexpr long long kMaxPlannedNodes = 100'000;
constexpr int kListedRoundsNodes = 32;     // --plan-links lists every round's pairs up to this many nodes
constexpr const char* kProbes = "Probes";  // the help group of what the probes measure and which links

struct HealthOptions {
  std::string backend = "auto";
  std::string launcher = "auto";
  double timeout_s = 30.0;
  std::vector<ReportTarget> reports;  // --json, --csv, --md, ...
  std::string prom;
  std::string rules;
  double expect_busbw = 0;
  int gpus_per_node = 0;  // 0: the cluster's majority
  double late_start_s = 5;
  std::string memory_bytes = "256M";
  std::string allreduce_bytes = "8M";
  std::string link_bytes = "1M";
  double tolerance_pct = 25;
  std::string links = "auto";
  std::uint64_t link_seed = 1;
  std::string detail = "auto";
  int plan_links = 0;  // --plan-links N: print the schedule for N nodes and run nothing
  double round_seconds = health::kMeasuredRoundSeconds;
  std::string level = "standard";
  double soak_seconds = -1;  // not given: the level's
  bool slurm_drain = false;
};

health::LinkMode link_mode(const std::string& text) {
  if (text == "all") return health::LinkMode::all;
  if (text == "scaled") return health::LinkMode::scaled;
  return health::LinkMode::automatic;
}

health::Detail detail_of(const std::string& text) {
  if (text == "all") return health::Detail::all;
  if (text == "problems") return health::Detail::problems;
  return health::Detail::automatic;
}

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
  if (o.gpus_per_node > 0) plan.gpus_per_node = o.gpus_per_node;
  plan.late_start_s = o.late_start_s;
  if (!(o.tolerance_pct > 0 && o.tolerance_pct < 100)) {
    throw usage_error(
        fmt::format("--tolerance {:g}% must be more than 0% and less than 100% (25%: a quarter below the "
                    "median)",
                    o.tolerance_pct));
  }
  plan.bandwidth.tolerance = o.tolerance_pct / 100;
  if (!o.rules.empty())
    plan.rules = health::parse_rules(read_text_file(o.rules, "rules file", kSmallTextFileMaxBytes), o.rules);
  plan.rules_path = o.rules;
  if (!plan.gpus_per_node && plan.rules.gpus_per_node) plan.gpus_per_node = plan.rules.gpus_per_node;
  plan.prom_path = o.prom;
  plan.slurm_drain = o.slurm_drain;
  plan.links = link_mode(o.links);
  plan.link_seed = o.link_seed;
  plan.detail = detail_of(o.detail);
  plan.level = health::parse_level(o.level).value_or(health::Level::standard);  // --level's check named the others
  health::apply_level(plan, o.soak_seconds >= 0 ? std::optional(o.soak_seconds) : std::nullopt);
  return plan;
}

// Options the plan has no use for: --tolerance, with a rules file that turns the median judgement off; what sizes or
// judges a phase the level does not run.
std::vector<UnusedOption> health_unused_by(const health::HealthPlan& plan) {
  std::vector<UnusedOption> out;
  if (!plan.rules.relative) {
    out.push_back({"--tolerance", fmt::format("the rules file {} turns the median judgement off (\"relative\": false)",
                                              plan.rules_path)});
  }
  const std::string level = fmt::format("--level {} runs no", name(plan.level));
  if (!health::phase_runs(plan, "links")) {
    for (const char* o : {"--link-bytes", "--links", "--link-seed"}) out.push_back({o, level + " link phase"});
  }
  if (!health::phase_runs(plan, "job")) out.push_back({"--expect-busbw", level + " job-wide allreduce"});
  if (!health::phase_runs(plan, "node") && !health::phase_runs(plan, "soak")) {
    out.push_back({"--allreduce-bytes", level + " allreduce (nor a soak: --soak-seconds)"});
  }
  return out;
}

// The probes' message and memory sizes.
void add_probe_size_options(CLI::App& app, HealthOptions& o) {
  app.add_option("--memory-bytes", o.memory_bytes, "Memory each rank touches, at most 1/4 of what is free")
      ->option_text("SIZE")
      ->group(kProbes);
  app.add_option("--allreduce-bytes", o.allreduce_bytes, "Size of the per-node and whole-job allreduce")
      ->option_text("SIZE")
      ->group(kProbes);
  app.add_option("--link-bytes", o.link_bytes, "Messages of the pairwise bandwidth test (4 in flight)")
      ->option_text("SIZE")
      ->group(kProbes);
}

// How much the check runs: its level and the data-corruption soak's budget.
void add_level_options(CLI::App& app, HealthOptions& o) {
  app.add_option("--level", o.level,
                 "quick: each node's own state, in seconds; standard: and every bandwidth, across nodes and links; "
                 "long: and longer probes, and the soak")
      ->option_text("LEVEL")
      ->default_str("standard")
      ->group(kProbes)
      ->check(one_of({"quick", "standard", "long"}));
  app.add_option("--soak-seconds", o.soak_seconds,
                 "Verified allreduce calls on every rank for this long, naming a rank whose results read back wrong")
      ->option_text("SECONDS")
      ->default_str(fmt::format("{:g} at --level long, else 0: none", health::kLongSoakSeconds))
      ->group(kProbes)
      ->check(non_negative_number("seconds", 86400));
}

// What a check is judged against: rules, an expected bus bandwidth, a late start, the median.
void add_judgement_options(CLI::App& app, HealthOptions& o) {
  app.add_option("--rules", o.rules, "JSON file of absolute rules for a known cluster type")
      ->option_text("PATH")
      ->group(groups::kVerification)
      ->check(non_empty_path());
  app.add_option("--expect-busbw", o.expect_busbw, "The whole job's allreduce must reach this bus bandwidth")
      ->option_text("GB/S")
      ->default_str("")  // none
      ->group(groups::kVerification);
  app.add_option("--gpus-per-node", o.gpus_per_node,
                 "GPUs NVML must count on each node (default: what most nodes have)")
      ->option_text("N")
      ->default_str("")  // the majority
      ->group(groups::kVerification)
      ->check(CLI::Range(1, 64));
  app.add_option("--late-start", o.late_start_s, "A node whose rank began this long after the first is degraded")
      ->option_text("SECONDS")
      ->group(groups::kVerification)
      ->check(CLI::Range(0.0, 86400.0));
  app.add_option("--tolerance", o.tolerance_pct, "Degraded when this far below the median (and 4 MADs)")
      ->option_text("PERCENT")
      ->default_str("25%")
      ->group(groups::kVerification)
      ->transform(percentage(0, 100));
}

// Which pairs the link phase measures, and --plan-links, which prints that schedule instead of running.
void add_link_schedule_options(CLI::App& app, HealthOptions& o) {
  app.add_option("--links", o.links,
                 fmt::format("Link pairs: every pair, or a scaled schedule (n log n pairs); auto: every pair up to {} "
                             "nodes",
                             health::kEveryPairUpToNodes))
      ->option_text("MODE")
      ->default_str("auto")
      ->group(kProbes)
      ->check(one_of({"auto", "all", "scaled"}));
  app.add_option("--link-seed", o.link_seed, "Seed of the scaled schedule's random ring (other seeds, other pairs)")
      ->option_text("N")
      ->default_str("1")
      ->group(kProbes);
  app.add_option("--plan-links", o.plan_links,
                 "Print the link schedule for N nodes (pairs, rounds, predicted time) and run nothing")
      ->option_text("N")
      ->default_str("")  // none: run the check
      ->group(kProbes)
      ->check(in_range(2, kMaxPlannedNodes, "node count"));
  app.add_option("--round-seconds", o.round_seconds, "--plan-links: the link phase's cost per round")
      ->option_text("SECONDS")
      ->default_str(fmt::format("{:g}", health::kMeasuredRoundSeconds))
      ->group(kProbes)
      ->check(positive_number("seconds", 3600));
}

// The report files, how much of the check they keep, and the Prometheus text.
void add_health_report_options(CLI::App& app, HealthOptions& o) {
  add_report_options(app, o.reports);
  app.add_option("--detail", o.detail,
                 fmt::format("What the reports keep: every check, or problems (those not healthy, and per node a "
                             "summary); auto: every check up to {} nodes",
                             health::kEveryCheckUpToNodes))
      ->option_text("WHAT")
      ->default_str("auto")
      ->group(groups::kReports)
      ->check(one_of({"auto", "all", "problems"}));
  app.add_option("--prom", o.prom, "Write Prometheus text for node-exporter's textfile collector")
      ->option_text("PATH")
      ->group(groups::kReports)
      ->check(non_empty_path());
  app.add_flag("--slurm-drain", o.slurm_drain,
               "Run scontrol: drain the degraded and failed nodes, resume those distbench drained that are healthy now "
               "(needs root or SlurmUser)")
      ->group(groups::kReports);
}

// No job: the schedule only, from the same code the check runs.
int print_link_plan(const HealthOptions& o, const health::HealthPlan& plan) {
  const auto links = health::plan_links(o.plan_links, plan.links, plan.link_seed, o.round_seconds);
  for (const auto& line : health::link_plan_lines(links, o.plan_links <= kListedRoundsNodes)) {
    fmt::print("{}\n", line);
  }
  return 0;
}

RunSettings health_run_settings(const HealthOptions& o) {
  RunSettings s;
  s.backend = o.backend;
  s.launcher = o.launcher;
  s.backend_options.timeout_s = o.timeout_s;
  // The watchdog is the backstop behind the phases' own bounds: a phase, its grace periods, and the verdict.
  s.timeout_s = 3 * o.timeout_s + 30;
  s.leave_timeout_s = o.timeout_s;
  s.timeout_exit_code = static_cast<int>(health::Status::unknown);
  s.interrupted_exit_code = static_cast<int>(health::Status::unknown);
  s.reports = o.reports;
  s.cpu_distance_warning = false;
  return s;
}

int run_health(Invocation& inv, const HealthOptions& o, const CLI::App& app) {
  const health::HealthPlan plan = make_health_plan(o);  // bad input fails before MPI
  if (o.plan_links > 0) return print_link_plan(o, plan);
  RunSettings s = health_run_settings(o);
  s.ignored_options = given_but_unused(app, health_unused_by(plan));
  health::HealthBenchmark benchmark(plan);
  return run_benchmark(inv, s, benchmark);
}

}  // namespace

void add_health_command(CLI::App& root, Commands& commands) {
  auto* app =
      root.add_subcommand("health", "Cluster check: per-rank, per-node, job-wide and link tests; a verdict per node");
  app->group("Benchmarks");
  app->footer(help_footer("More: docs/health.md, 'Usage'; rules files: docs/health.md, 'Health rules'.",
                          health_exit_code_lines()));
  auto o = std::make_shared<HealthOptions>();
  add_level_options(*app, *o);
  add_probe_size_options(*app, *o);
  add_judgement_options(*app, *o);
  add_link_schedule_options(*app, *o);
  add_health_report_options(*app, *o);
  add_backend_option(*app, o->backend);
  add_launcher_option(*app, o->launcher);
  app->add_option("-T,--timeout", o->timeout_s, "Seconds each phase may take; late ranks are named")
      ->option_text("SECONDS")
      ->group(groups::kLaunch);
  commands.push_back({app, [o, app](Invocation& inv) { return run_health(inv, *o, *app); },
                      [](ExitCode) { return static_cast<int>(health::Status::unknown); }});
}

}  // namespace distbench::cli
