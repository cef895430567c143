#include "benchmarks/health/health_benchmark.hpp"

#include "benchmarks/health/evaluate.hpp"
#include "benchmarks/health/health_text.hpp"
#include "benchmarks/health/phase_runner.hpp"
#include "benchmarks/health/probes.hpp"
#include "benchmarks/health/prometheus.hpp"
#include "core/groups.hpp"
#include "core/memory_budget.hpp"
#include "core/quote.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace distbench::health {
namespace {

double unix_time_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}


constexpr int kPhases = 8;

std::vector<Record> records_of(const std::vector<Check>& checks) {
  std::vector<Record> out;
  for (const Check& c : checks) out.push_back(check_record(c));
  return out;
}

nlohmann::json pairs_json(const std::vector<NodePair>& pairs) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& [a, b] : pairs) j.push_back({a, b});
  return j;
}

std::vector<NodePair> pairs_of(const nlohmann::json& j) {
  std::vector<NodePair> out;
  for (const auto& p : j) out.emplace_back(p[0].get<int>(), p[1].get<int>());
  return out;
}

// What the root keeps through the phases, and what it shows as they end.
class Findings {
 public:
  Findings(Reporter* reporter, const HealthPlan& plan) : reporter_(reporter), plan_(plan) {}

  void add(std::vector<Check> checks) {
    if (reporter_ != nullptr) {
      for (const Check& c : checks) reporter_->add({check_record(c)});  // one table row each
    }
    all_.insert(all_.end(), checks.begin(), checks.end());
  }
  // The verdict per node and of the whole check, as records; the exit code.
  int conclude(const Topology& topo, const std::string& abandoned, const std::string& last_phase) {
    if (!abandoned.empty()) {
      // A node nothing was found against was not checked to the end: not healthy, unknown.
      std::vector<Check> unchecked;
      for (const NodeVerdict& v : node_verdicts(topo.hosts, topo.ranks_of_node, all_)) {
        if (v.status != Status::healthy) continue;
        Check c = make_check("verdict", v.host, v.host, "node.checked", kNotMeasured, "1");
        c.status = Status::unknown;
        c.why = fmt::format("not checked to the end: the check stopped in phase {}", last_phase);
        unchecked.push_back(std::move(c));
      }
      add(std::move(unchecked));
    }
    const std::vector<NodeVerdict> nodes = node_verdicts(topo.hosts, topo.ranks_of_node, all_);
    std::vector<Check> verdicts;
    for (const NodeVerdict& v : nodes) {
      Check c = make_check("verdict", v.host, v.host, "node.status", static_cast<int>(v.status), "1");
      c.status = v.status;
      c.why = v.reason;
      verdicts.push_back(std::move(c));
    }
    const Status overall = overall_status(nodes, all_);
    Check cluster = make_check("verdict", "cluster", "", "cluster.status", static_cast<int>(overall), "1");
    cluster.status = overall;
    cluster.why = abandoned;
    for (const Check& c : all_) {  // else the job's own check that decided, if one did
      if (cluster.why.empty() && c.host.empty() && !c.screening && c.status == overall && overall != Status::healthy) {
        cluster.why = describe(c);
      }
    }
    if (cluster.why.empty() && overall != Status::healthy) {  // else the nodes that made it so
      for (const NodeVerdict& v : nodes) {
        if (v.status != Status::healthy)
          cluster.why += fmt::format("{}{} {}", cluster.why.empty() ? "" : ", ", v.host, name(v.status));
      }
    }
    verdicts.push_back(cluster);
    add(std::move(verdicts));
    if (!plan_.prom_path.empty()) {
      std::vector<Record> records = records_of(all_);
      write_file_atomically(plan_.prom_path, prometheus_text(records, unix_time_now()));
    }
    return static_cast<int>(overall);
  }

 private:
  Reporter* reporter_;
  const HealthPlan& plan_;
  std::vector<Check> all_;
};

}  // namespace

// Sizes that cannot fit are bad input (exit 3, unknown), found before any phase: judged inside a phase, they would
// read as a failed node and print a drain line for a healthy one.
void HealthBenchmark::check(World& world) const {
  const std::uint64_t have = world.device().memory_available(world.connector().local_size());
  const std::pair<const char*, MemoryNeed> needs[] = {
      {"--allreduce-bytes", {add_saturating(plan_.allreduce_bytes, plan_.allreduce_bytes), plan_.allreduce_bytes}},
      {"--link-bytes",
       {plan_.link_message_bytes > UINT64_MAX / 8 ? UINT64_MAX
                                                  : plan_.link_message_bytes * static_cast<std::uint64_t>(plan_.link_window),
        0}},
  };
  for (const auto& [option, need] : needs) {
    if (const auto why = memory_shortfall(need, have)) {
      throw usage_error(fmt::format("{}: the check {} on {}; lower {}", option, *why, world.connector().hostname(),
                                    option));
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
  d.records.params = {"phase", "subject", "host", "metric", "unit", "limit", "status", "why"};
  d.records.metrics = {{"value", "", "the measured figure, in the record's unit"}};
  d.table.key_columns = {{"phase", "phase", "", 10, CellFormat::text, "phase"},
                         {"subject", "subject", "", 16, CellFormat::text, "subject"},
                         {"metric", "metric", "", 26, CellFormat::text, "metric"}};
  d.table.value_columns = {{"value", "value", "", 10, CellFormat::number, "value"},
                           {"unit", "unit", "", 5, CellFormat::text, "unit"},
                           {"status", "status", "", 8, CellFormat::text, "status"},
                           {"limit", "limit", "", 1, CellFormat::text, "limit"}};
  d.console_preamble = {fmt::format("health: {} ranks, backend {}, every phase within {:g} s", info.world_size,
                                    info.backend, plan_.timeout_s)};
  d.facts = {fmt::format("health check of {} ranks, backend {}", info.world_size, info.backend)};
  d.summarize = health_summary;
  d.sections = health_sections;
  return d;
}

BenchmarkOutcome HealthBenchmark::run(World& world, Watchdog& watchdog, Reporter* reporter,
                                      const ProgressFn& progress) {
  Connector& connector = world.connector();
  const bool root = connector.is_root();
  Communicator* world_comm = nullptr;
  Communicator* node_comm = nullptr;
  std::vector<std::string> host_of_rank;
  {
    // Before any phase, while every rank is known to answer: blocking, so under the watchdog.
    auto guard = watchdog.arm("health: setting up the communicators");
    host_of_rank = allgather_string(connector, connector.hostname());
    world_comm = &world.communicator(world_partition(connector.size()));
    node_comm = &world.communicator(node_partition(connector.node_of_ranks()));
  }
  const Topology topo = make_topology(connector.node_of_ranks(), host_of_rank);
  if (root && !plan_.prom_path.empty()) {
    write_file_atomically(plan_.prom_path, prometheus_unfinished_text(unix_time_now()), Durability::process);
  }
  PhaseRunner phases(connector, plan_.timeout_s);
  Findings findings(reporter, plan_);
  int done = 0;
  std::string last_phase;

  // One phase: run, judge on the root, tell everyone whether to go on. Returns the root's decision.
  auto phase = [&](const std::string& name, const std::function<nlohmann::json(PhaseContext&)>& body,
                   const std::function<std::vector<Check>(const PhaseResult&, nlohmann::json&)>& judge) {
    if (root) progress(static_cast<std::size_t>(done), kPhases, fmt::format("phase {}", name));
    ++done;
    auto guard = watchdog.arm(fmt::format("health phase {}", name));
    last_phase = name;
    PhaseResult result = phases.run(name, body);
    nlohmann::json decision = {{"go", true}};
    if (root) {
      std::vector<Check> checks = arrival_checks(result, topo, plan_.timeout_s, connector.root_rank());
      const bool arrived = result.missing().empty() && !result.root_late();
      // A rank whose calls failed may be stuck inside one: nothing more can run safely (the rank phase's calls are
      // its own).
      const bool stuck = !arrived || (name != "rank" && !result.failures().empty());
      // What the ranks that arrived measured is kept, whatever the others did.
      auto more = judge(result, decision);
      checks.insert(checks.end(), more.begin(), more.end());
      Check t = make_check("phase", name, "", "phase.seconds", result.seconds, "s");
      if (result.root_late()) {
        t.why = fmt::format("TIMEOUT: the root, rank {} ({}), was {:.3g} s late: it was stopped or starved",
                            connector.root_rank(), topo.host_of(connector.root_rank()), result.root_behind_s);
      } else if (!arrived) {
        std::string who;
        for (int r : result.missing()) who += fmt::format("{}{} ({})", who.empty() ? "" : ", ", r, topo.host_of(r));
        t.why = fmt::format("TIMEOUT: {} {} did not arrive within {:g} s",
                            result.missing().size() == 1 ? "rank" : "ranks", who, plan_.timeout_s);
      } else if (stuck) {
        t.why = fmt::format("calls did not complete on {}: {}", plural(result.failures().size(), "rank", "ranks"),
                            result.failures().front().second);
      }
      if (stuck) decision = {{"go", false}, {"abandon", fmt::format("health phase {}: {}", name, t.why)}};
      if (const double overdue = phases.decision_overdue_s(); overdue > 0) {
        // Stopped or starved past the others' wait for this decision: they end without a verdict (unknown, exit
        // 3), and so does the root's own finding, so that the job's exit code and the .prom agree.
        const std::string root_subject = fmt::format("rank {}", connector.root_rank());
        auto late = std::find_if(checks.begin(), checks.end(), [&](const Check& c) {
          return c.metric == "phase.arrived" && c.subject == root_subject;
        });
        if (late == checks.end()) {
          checks.push_back(root_late_check(name, topo, connector.root_rank(), overdue, plan_.timeout_s));
          late = std::prev(checks.end());
        }
        late->status = Status::unknown;
        late->why += "; the others stopped waiting for its decision and ended without a verdict";
        if (t.why.empty()) t.why = late->why;
        decision = {{"go", false}, {"abandon", fmt::format("health phase {}: {}", name, late->why)}};
      }
      // The phase's own time is information (status healthy): the ranks' checks carry the verdict.
      checks.push_back(t);
      findings.add(std::move(checks));
    }
    return phases.decide(decision);
  };

  nlohmann::json last_decision = {{"go", true}};  // what the root decided after the phase before
  std::vector<double> steady_offset_ns(topo.hosts.size(), 0.0);
  Screening copy_screen, node_screen;
  LinkJudgement links;
  IsolationPlan isolation;
  const std::vector<std::function<nlohmann::json()>> steps = {
      [&] {
        return phase(
            "rank", [&](PhaseContext& ctx) { return probe_rank(world, plan_, ctx); },
            [&](const PhaseResult& r, nlohmann::json&) { return rank_checks(r, topo, plan_, copy_screen); });
      },
      [&] {
        return phase(
            "clock", [&](PhaseContext& ctx) { return probe_clock(connector, topo.leaders, ctx); },
            [&](const PhaseResult& r, nlohmann::json&) { return clock_checks(r, topo, plan_, steady_offset_ns); });
      },
      [&] {
        return phase(
            "node", [&](PhaseContext& ctx) { return probe_allreduce(world, *node_comm, plan_, ctx); },
            [&](const PhaseResult& r, nlohmann::json& decision) {
              auto checks =
                  allreduce_checks(r, "node", topo.ranks_of_node, topo.hosts, topo.hosts, plan_, &node_screen);
              decision["confirm_ranks"] = copy_screen.suspects;
              decision["confirm_copy_pass"] = copy_screen.bound_of("memory.copy_gbps");
              decision["confirm_nodes"] = node_screen.suspects;
              return checks;
            });
      },
      [&] {
        // Confirmation: what the screenings flagged while every rank and node measured at once, measured again
        // with the others idle (a busy shared host is not a bad one).
        const auto& d = last_decision;
        const auto ranks = d.value("confirm_ranks", std::vector<int>{});
        const auto nodes = d.value("confirm_nodes", std::vector<int>{});
        const int my_node = connector.node_of_ranks()[static_cast<std::size_t>(connector.rank())];
        return phase(
            "confirm",
            [&](PhaseContext& ctx) {
              nlohmann::json out = nlohmann::json::object();
              if (std::find(ranks.begin(), ranks.end(), connector.rank()) != ranks.end()) {
                // Local: measured again (up to retest_attempts) while below the bound.
                const double pass = d.value("confirm_copy_pass", 0.0);
                nlohmann::json best;
                for (int a = 0; a < plan_.retest_attempts && (a == 0 || best["copy_gbps"].get<double>() < pass); ++a) {
                  auto again = probe_copy(world, plan_, ctx);
                  if (a == 0 || again["copy_gbps"].get<double>() > best["copy_gbps"].get<double>()) {
                    best = again;
                  }
                }
                out.update(best);
              }
              if (std::find(nodes.begin(), nodes.end(), my_node) != nodes.end()) {
                // The node's ranks agree on nothing more than a count: retest_attempts times the timed
                // calls, the best of them counts.
                HealthPlan longer = plan_;
                longer.allreduce_repetitions *= plan_.retest_attempts;
                out.update(probe_allreduce(world, *node_comm, longer, ctx));
              }
              return out;
            },
            [&](const PhaseResult& r, nlohmann::json&) {
              return confirm_checks(r, topo, copy_screen, node_screen, plan_);
            });
      },
      [&] {
        std::vector<int> all(static_cast<std::size_t>(connector.size()));
        for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
        return phase(
            "job", [&](PhaseContext& ctx) { return probe_allreduce(world, *world_comm, plan_, ctx); },
            [&, all](const PhaseResult& r, nlohmann::json&) {
              return allreduce_checks(r, "job", {all}, {"job"}, {""}, plan_, nullptr);
            });
      },
      [&] {
        std::vector<NodePair> pairs;
        for (const auto& round : round_robin(static_cast<int>(topo.hosts.size()))) {
          pairs.insert(pairs.end(), round.begin(), round.end());
        }
        auto d = phase(
            "links",
            [&](PhaseContext& ctx) { return probe_links(world, *world_comm, topo.leaders, pairs, plan_, ctx); },
            [&](const PhaseResult& r, nlohmann::json& decision) {
              links = link_checks(r, topo, plan_);
              isolation = plan_isolation(static_cast<int>(topo.hosts.size()), links.bad, links.good, links.score);
              decision["retests"] = pairs_json(isolation.retests);
              // A re-test that passes the links' bound needs no second attempt.
              decision["retest_pass_gbps"] = links.bandwidth_bound ? links.bandwidth_bound->bound : 0.0;
              return links.checks;
            });
        return d;
      },
  };
  for (const auto& step : steps) {
    last_decision = step();
    if (!last_decision["go"].get<bool>()) break;
  }
  nlohmann::json decision = last_decision;
  if (decision["go"].get<bool>()) {
    // Isolation: the retests the root planned, one pair at a time per node (every node takes them in plan order).
    const auto retests = pairs_of(decision.value("retests", nlohmann::json::array()));
    const double pass = decision.value("retest_pass_gbps", 0.0);
    decision = phase(
        "isolation",
        [&](PhaseContext& ctx) {
          return probe_links(world, *world_comm, topo.leaders, retests, plan_, ctx, pass, plan_.retest_attempts);
        },
        [&](const PhaseResult& r, nlohmann::json&) { return isolation_checks(r, topo, isolation, links, plan_); });
  }
  if (decision["go"].get<bool>()) {
    decision = phase(
        "stragglers", [&](PhaseContext& ctx) { return probe_stragglers(world, *world_comm, plan_, ctx); },
        [&](const PhaseResult& r, nlohmann::json&) { return straggler_checks(r, topo, plan_, steady_offset_ns); });
  }
  if (root) progress(kPhases, kPhases, "");

  // The verdict, on the root; every rank leaves with its exit code.
  const std::string abandoned = decision.value("abandon", std::string());
  nlohmann::json ending = {{"exit", 0}, {"abandon", abandoned}};
  if (root) ending["exit"] = findings.conclude(topo, abandoned, last_phase);
  if (abandoned.empty()) {
    std::string text = ending.dump();
    auto guard = watchdog.arm("health: sharing the verdict");
    broadcast_string(connector, text, connector.root_rank());
    ending = nlohmann::json::parse(text);
  }
  BenchmarkOutcome outcome;
  outcome.exit_code = ending["exit"].get<int>();
  outcome.abandon = abandoned;
  if (!abandoned.empty() && !root) {
    // The root's verdict is the job's: it leaves first. A rank that never heard it says why it ends unknown.
    outcome.exit_code = decision.value("exit", static_cast<int>(Status::failed));
    if (decision.contains("exit")) {
      fmt::print(stderr, "error: rank {} ({}): health phase {}: {}\n", connector.rank(),
                 escape_text(connector.hostname()), last_phase, abandoned);
    }
  }
  return outcome;
}

}  // namespace distbench::health
