#include "benchmarks/health/health_benchmark.hpp"

#include "benchmarks/health/findings.hpp"
#include "benchmarks/health/health_record.hpp"
#include "benchmarks/health/health_run.hpp"
#include "benchmarks/health/health_text.hpp"
#include "benchmarks/health/prometheus.hpp"
#include "core/device/memory_budget.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/text.hpp"

#include <fmt/format.h>

#include <set>

namespace distbench::health {

// Sizes that cannot fit are bad input (exit 3, unknown), found before any phase: judged inside a phase, they would
// read as a failed node and print a drain line for a healthy one.
void HealthBenchmark::check(World& world) const {
  const MemoryShare have = memory_share(world.device(), world.connector().local_size());
  const std::pair<const char*, MemoryNeed> needs[] = {
      {"--allreduce-bytes", {add_saturating(plan_.allreduce_bytes, plan_.allreduce_bytes), plan_.allreduce_bytes}},
      {"--link-bytes",
       {plan_.link_message_bytes > UINT64_MAX / 8
            ? UINT64_MAX
            : plan_.link_message_bytes * static_cast<std::uint64_t>(plan_.link_window),
        0}},
  };
  for (const auto& [option, need] : needs) {
    if (const auto why = memory_shortfall(need, have)) {
      throw usage_error(
          fmt::format("{}: the check {} on {}; lower {}", option, *why, world.connector().hostname(), option));
    }
  }
}

std::vector<NamedPath> HealthBenchmark::output_files() const {
  if (plan_.prom_path.empty()) return {};
  return {{"--prom", plan_.prom_path}};
}

std::vector<NamedPath> HealthBenchmark::input_files() const {
  if (plan_.rules_path.empty()) return {};
  return {{"--rules", plan_.rules_path}};
}

void HealthBenchmark::mark_unfinished(const std::string& reason) const {
  if (plan_.prom_path.empty()) return;
  write_file_atomically(plan_.prom_path, prometheus_ended_early_text(reason, unix_time_now()), Durability::process);
}

namespace {

// A level other than the default, in words: the phases it runs ("level quick: rank, clock, confirm").
std::string level_words(const HealthPlan& plan) {
  std::string phases;
  for (const PhaseLevel& p : kPhaseLevels) {
    if (phase_runs(plan, p.phase)) phases += fmt::format("{}{}", phases.empty() ? "" : ", ", p.phase);
  }
  std::string soak = plan.soak_seconds > 0 ? fmt::format(" (soak: {:g} s)", plan.soak_seconds) : "";
  return fmt::format("level {}: phases {}{}", name(plan.level), phases, soak);
}

}  // namespace

RunDescription HealthBenchmark::describe(const RunInfo& info) const {
  RunDescription d;
  d.benchmark = "health";
  d.title = "health";
  auto& c = d.config;
  c["timeout_s"] = plan_.timeout_s;
  c["memory_bytes"] = plan_.memory_bytes;
  c["allreduce_bytes"] = plan_.allreduce_bytes;
  c["link_message_bytes"] = plan_.link_message_bytes;
  c["link_window"] = plan_.link_window;
  c["straggler_iterations"] = plan_.straggler_iterations;
  c["expect_busbw_gbps"] = plan_.expect_busbw_gbps ? nlohmann::ordered_json(*plan_.expect_busbw_gbps) : nullptr;
  c["rules"] = plan_.rules.rules.size();
  c["relative"] = plan_.rules.relative;
  c["bandwidth_tolerance"] = plan_.bandwidth.tolerance;
  c["latency_tolerance"] = plan_.latency.tolerance;
  c["mads"] = plan_.bandwidth.mads;
  // The nodes, from the ranks' hosts (every rank builds the same schedule from its own count of them).
  std::set<std::string> hosts;
  for (const RankInfo& r : info.ranks) hosts.insert(r.host);
  const int nodes = static_cast<int>(hosts.size());
  const LinkSchedule links = link_schedule(nodes, plan_.links, plan_.link_seed);
  const bool every_check = keeps_every_check(plan_.detail, hosts.size());
  c["links"] = name(links.mode);
  c["link_seed"] = plan_.link_seed;
  c["link_pairs"] = links.pairs();
  c["link_rounds"] = links.rounds.size();
  c["detail"] = every_check ? "all" : "problems";
  c["level"] = name(plan_.level);
  c["soak_seconds"] = plan_.soak_seconds;
  d.records = health_record_layout();
  d.table = health_table();
  d.console_preamble = {
      fmt::format("health: {} ranks on {}, backend {}, every phase within {:g} s", info.world_size,
                  plural(hosts.size(), "node", "nodes"), info.backend, plan_.timeout_s),
      nodes < 2 ? std::string("links: none (one node)")
                : fmt::format("links: {}: {} in {} of disjoint pairs", schedule_words(links),
                              plural(links.pairs(), "pair", "pairs"), plural(links.rounds.size(), "round", "rounds")),
      fmt::format("the table lists the checks that are not healthy (a suspect's re-test, not the suspect); the "
                  "reports keep {}",
                  every_check ? "every check" : "those, and a summary per node (--detail all: every check)")};
  if (plan_.level != Level::standard || plan_.soak_seconds > 0) d.console_preamble.push_back(level_words(plan_));
  d.facts = {fmt::format("health check of {} ranks, backend {}", info.world_size, info.backend)};
  d.summarize = health_summary;
  d.sections = [every_check](const std::vector<Record>& records) { return health_sections(records, every_check); };
  d.console_row = console_row;
  return d;
}

BenchmarkOutcome HealthBenchmark::run(World& world, Watchdog& watchdog, Reporter* reporter,
                                      const ProgressFn& progress) {
  return HealthRun(world, watchdog, reporter, progress, plan_).run(startup_);
}

}  // namespace distbench::health
