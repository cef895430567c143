#include "benchmarks/health/health_run.hpp"

#include "benchmarks/health/drift.hpp"
#include "benchmarks/health/gpu_checks.hpp"
#include "benchmarks/health/nic_checks.hpp"
#include "benchmarks/health/probes.hpp"
#include "benchmarks/health/prometheus.hpp"
#include "benchmarks/health/slurm_run.hpp"
#include "benchmarks/health/soak.hpp"
#include "benchmarks/health/spec_checks.hpp"
#include "benchmarks/health/start_checks.hpp"
#include "core/comm/groups.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/text.hpp"
#include "core/sys/gpu_readings.hpp"
#include "core/sys/node_facts.hpp"
#include "core/sys/quote.hpp"
#include "version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <span>

namespace distbench::health {
namespace {

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

bool goes_on(const nlohmann::json& decision) { return decision["go"].get<bool>(); }

// --slurm-drain: every rank's SLURMD_NODENAME (set by slurmd for the tasks it starts; "" where unset: under mpirun),
// on the root; empty elsewhere. One small gather, only when asked.
std::vector<std::string> gather_slurm_names(Connector& connector, const ArmedStep& step) {
  const char* mine = std::getenv("SLURMD_NODENAME");
  const std::string text = mine == nullptr ? std::string() : std::string(mine).substr(0, 256);
  std::vector<std::string> out;
  for (const auto& bytes :
       connector.gather(std::as_bytes(std::span(text.data(), text.size())), connector.root_rank(), step)) {
    out.emplace_back(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  return out;
}

}  // namespace

HealthRun::HealthRun(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress,
                     const HealthPlan& plan)
    : world_(world),
      connector_(world.connector()),
      watchdog_(watchdog),
      progress_(progress),
      plan_(plan),
      root_(connector_.is_root()),
      phases_(connector_, plan.timeout_s),
      findings_(reporter, plan),
      decision_({{"go", true}}) {
  std::vector<std::string> host_of_rank;
  std::vector<std::string> rank_slurm_names;  // --slurm-drain: every rank's SLURMD_NODENAME, on the root
  {
    // Before any phase, while every rank is known to answer: blocking, so under the watchdog.
    const ArmedStep step = watchdog_.arm(StepKind::setup, "health: setting up the communicators");
    host_of_rank = allgather_string(connector_, connector_.hostname(), step);
    if (plan_.slurm_drain) rank_slurm_names = gather_slurm_names(connector_, step);
    world_comm_ = &world_.communicator(world_partition(connector_.size()), step);
    node_comm_ = &world_.communicator(node_partition(connector_.node_of_ranks()), step);
  }
  topo_ = make_topology(connector_.node_of_ranks(), host_of_rank);
  if (!rank_slurm_names.empty()) {  // each node's name is its first rank's
    for (int leader : topo_.leaders) slurm_names_.push_back(rank_slurm_names[static_cast<std::size_t>(leader)]);
  }
  findings_.set_nodes(topo_.hosts.size());
  findings_.set_backend(std::string(world_.backend().name()));
  steady_offset_ns_.assign(topo_.hosts.size(), 0.0);
  planned_ = static_cast<std::size_t>(
      std::count_if(steps().begin(), steps().end(), [&](const NamedStep& s) { return phase_runs(plan_, s.name); }));
}

BenchmarkOutcome HealthRun::run(const std::vector<StartupRank>& startup) {
  if (root_ && !startup.empty() && phase_runs(plan_, "start")) {
    std::vector<Check> late = start_checks(startup, topo_, plan_.late_start_s);
    apply_plan_rules(late, plan_);
    findings_.add(std::move(late));
  }
  if (root_ && !plan_.prom_path.empty()) {
    write_file_atomically(plan_.prom_path, prometheus_unfinished_text(unix_time_now()), Durability::process);
  }
  for (const auto& [name, step] : steps()) {
    if (!phase_runs(plan_, name)) continue;  // not at this level (levels.hpp)
    decision_ = (this->*step)();
    if (decision_.contains("confirm_ranks")) screened_ = decision_;
    if (!goes_on(decision_)) break;
  }
  if (root_) progress_(planned_, planned_, "");
  return finish();
}

// The phases in order, by name: each runs when the plan's level does (levels.hpp's table, one row per phase).
const std::vector<HealthRun::NamedStep>& HealthRun::steps() {
  static const std::vector<NamedStep> all = {
      {"gpu", &HealthRun::gpu_phase},
      {"rank", &HealthRun::rank_phase},
      {"clock", &HealthRun::clock_phase},
      {"drift", &HealthRun::drift_phase},
      {"node", &HealthRun::node_phase},
      {"confirm", &HealthRun::confirm_phase},
      {"job", &HealthRun::job_phase},
      {"links", &HealthRun::links_phase},
      {"isolation", &HealthRun::isolation_phase},
      {"stragglers", &HealthRun::stragglers_phase},
      {"soak", &HealthRun::soak_phase},
  };
  return all;
}

nlohmann::json HealthRun::phase(const std::string& name, const Body& body, const Judge& judge, double timeout_s) {
  if (root_) progress_(static_cast<std::size_t>(done_), planned_, fmt::format("phase {}", name));
  ++done_;
  // The watchdog's backstop stays as far behind a longer phase's bound (and its graces) as behind -T's.
  const double longer_s = timeout_s > plan_.timeout_s ? 3 * (timeout_s - plan_.timeout_s) : 0;
  const ArmedStep step = watchdog_.arm(StepKind::health_phase, fmt::format("health phase {}", name),
                                       longer_s > 0 ? watchdog_.timeout_s() + longer_s : 0);
  last_phase_ = name;
  const PhaseResult result = phases_.run(name, body, timeout_s);
  return phases_.decide(root_ ? judge_on_root(name, result, judge) : nlohmann::json{{"go", true}});
}

nlohmann::json HealthRun::judge_on_root(const std::string& name, const PhaseResult& result, const Judge& judge) {
  nlohmann::json decision = {{"go", true}};
  std::vector<Check> checks = arrival_checks(result, topo_, plan_.timeout_s, connector_.root_rank());
  const bool arrived = result.missing().empty() && !result.root_late();
  // A rank whose calls failed may be stuck inside one: nothing more can run safely (the rank phase's calls are its
  // own).
  const bool stuck = !arrived || (name != "rank" && !result.failures().empty());
  // What the ranks that arrived measured is kept, whatever the others did.
  auto more = judge(result, decision);
  checks.insert(checks.end(), more.begin(), more.end());
  if (auto why = untested_reason(name, topo_.hosts.size(), connector_.size())) {
    checks.push_back(make_skipped_check(name, name, "", "phase.tested", std::move(*why)));
  }
  Check time = phase_time(name, result, arrived, stuck);
  if (stuck) decision = {{"go", false}, {"abandon", fmt::format("health phase {}: {}", name, time.why)}};
  if (const double overdue = phases_.decision_overdue_s(); overdue > 0) {
    decision = root_overdue(name, overdue, checks, time);
  }
  // The phase's own time is information (status healthy): the ranks' checks carry the verdict.
  checks.push_back(time);
  findings_.add(std::move(checks));
  return decision;
}

Check HealthRun::phase_time(const std::string& name, const PhaseResult& result, bool arrived, bool stuck) const {
  Check t = make_check("phase", name, "", "phase.seconds", result.seconds, "s");
  if (result.root_late()) {
    t.why = fmt::format("TIMEOUT: the root, rank {} ({}), was {:.3g} s late: it was stopped or starved",
                        connector_.root_rank(), topo_.host_of(connector_.root_rank()), result.root_behind_s);
  } else if (!arrived) {
    std::string who;
    for (int r : result.missing()) who += fmt::format("{}{} ({})", who.empty() ? "" : ", ", r, topo_.host_of(r));
    t.why = fmt::format("TIMEOUT: {} {} did not arrive within {:g} s", result.missing().size() == 1 ? "rank" : "ranks",
                        who, plan_.timeout_s);
  } else if (stuck) {
    t.why = fmt::format("calls did not complete on {}: {}", plural(result.failures().size(), "rank", "ranks"),
                        result.failures().front().second);
  }
  return t;
}

nlohmann::json HealthRun::root_overdue(const std::string& name, double overdue_s, std::vector<Check>& checks,
                                       Check& time) {
  const std::string root_subject = fmt::format("rank {}", connector_.root_rank());
  auto late = std::find_if(checks.begin(), checks.end(),
                           [&](const Check& c) { return c.metric == "phase.arrived" && c.subject == root_subject; });
  if (late == checks.end()) {
    checks.push_back(root_late_check(name, topo_, connector_.root_rank(), overdue_s, plan_.timeout_s));
    late = std::prev(checks.end());
  }
  late->status = Status::unknown;
  late->why += "; the others stopped waiting for its decision and ended without a verdict";
  if (time.why.empty()) time.why = late->why;
  return {{"go", false}, {"abandon", fmt::format("health phase {}: {}", name, late->why)}};
}

nlohmann::json HealthRun::rank_phase() {
  return phase(
      "rank", [&](PhaseContext& ctx) { return probe_rank(world_, plan_, ctx); },
      [&](const PhaseResult& r, nlohmann::json& decision) {
        auto checks = rank_checks(r, topo_, plan_, copy_screen_);
        auto held = spec_checks(r, topo_, plan_);
        checks.insert(checks.end(), held.begin(), held.end());
        // For the confirmation when no node phase runs before it (--level quick); the node phase says it again.
        decision["confirm_ranks"] = copy_screen_.suspects;
        decision["confirm_copy_pass"] = copy_screen_.bound_of("memory.copy_gbps");
        return checks;
      });
}

nlohmann::json HealthRun::gpu_phase() {
  return phase(
      "gpu", [&](PhaseContext& ctx) { return probe_gpus(world_, plan_, ctx); },
      [&](const PhaseResult& r, nlohmann::json&) {
        gpu_states_.assign(topo_.leaders.size(), nullptr);
        for (std::size_t n = 0; n < topo_.leaders.size(); ++n) {
          const auto& j = r.ranks[static_cast<std::size_t>(topo_.leaders[n])];
          if (j && j->contains("nvml")) gpu_states_[n] = (*j)["nvml"];
        }
        return gpu_checks(r, topo_, plan_);
      });
}

nlohmann::json HealthRun::clock_phase() {
  return phase(
      "clock", [&](PhaseContext& ctx) { return probe_clock(connector_, topo_.leaders, ctx); },
      [&](const PhaseResult& r, nlohmann::json&) {
        auto checks = clock_checks(r, topo_, plan_, steady_offset_ns_);  // the offsets, for the stragglers
        if (topo_.hosts.size() == 1) checks.clear();  // the root's host against itself: 0 by construction
        return checks;
      });
}

// Each node's first rank reads its node's facts; the root compares them.
nlohmann::json HealthRun::drift_phase() {
  const auto& leaders = topo_.leaders;
  const bool leader = std::find(leaders.begin(), leaders.end(), connector_.rank()) != leaders.end();
  return phase(
      "drift",
      [&](PhaseContext&) {
        if (!leader) return nlohmann::json::object();
        KeyValues facts = node_facts(this_process_sources({{"distbench", fmt::format("{} ({})", kVersion, kGitSha)}}));
        merge_facts(facts, connector_.library_versions());
        merge_facts(facts, world_.backend().library_versions());
        return facts_json(facts);
      },
      [&](const PhaseResult& r, nlohmann::json&) {
        std::vector<std::optional<KeyValues>> facts;
        for (int l : leaders) {
          const auto& j = r.ranks[static_cast<std::size_t>(l)];
          facts.push_back(j ? facts_of(*j) : std::nullopt);
          // The node's GPUs as the gpu phase read them (VBIOS drift, as Imbue's host validation compares it).
          const std::size_t n = facts.size() - 1;
          if (facts.back() && n < gpu_states_.size() && !gpu_states_[n].is_null()) {
            merge_facts(*facts.back(), gpu_facts(gpu_states_[n]));
          }
        }
        auto checks = drift_checks(topo_.hosts, facts);
        apply_plan_rules(checks, plan_);
        return checks;
      });
}

nlohmann::json HealthRun::node_phase() {
  return phase(
      "node", [&](PhaseContext& ctx) { return probe_allreduce(world_, *node_comm_, plan_, ctx); },
      [&](const PhaseResult& r, nlohmann::json& decision) {
        auto checks = allreduce_checks(r, "node", topo_.ranks_of_node, topo_.hosts, topo_.hosts, plan_, &node_screen_);
        decision["confirm_ranks"] = copy_screen_.suspects;
        decision["confirm_copy_pass"] = copy_screen_.bound_of("memory.copy_gbps");
        decision["confirm_nodes"] = node_screen_.suspects;
        return checks;
      });
}

nlohmann::json HealthRun::confirm_phase() {
  return phase(
      "confirm", [&](PhaseContext& ctx) { return confirm_body(ctx); },
      [&](const PhaseResult& r, nlohmann::json&) {
        return confirm_checks(r, topo_, copy_screen_, node_screen_, plan_);
      });
}

// The suspects named in the node phase's decision (or the rank phase's where no node phase ran: screened_, on every
// rank) measure again: a rank its copy
// bandwidth (up to retest_attempts times while below the bound, the best counting), a node its allreduce
// (retest_attempts times the timed calls: the node's ranks agree on nothing more than a count).
nlohmann::json HealthRun::confirm_body(PhaseContext& ctx) {
  const auto ranks = screened_.value("confirm_ranks", std::vector<int>{});
  const auto nodes = screened_.value("confirm_nodes", std::vector<int>{});
  const int my_node = connector_.node_of_ranks()[static_cast<std::size_t>(connector_.rank())];
  nlohmann::json out = nlohmann::json::object();
  if (std::find(ranks.begin(), ranks.end(), connector_.rank()) != ranks.end()) {
    const double pass = screened_.value("confirm_copy_pass", 0.0);
    nlohmann::json best;
    for (int a = 0; a < plan_.retest_attempts && (a == 0 || best["copy_gbps"].get<double>() < pass); ++a) {
      auto again = probe_copy(world_, plan_, ctx);
      if (a == 0 || again["copy_gbps"].get<double>() > best["copy_gbps"].get<double>()) best = again;
    }
    out.update(best);
  }
  if (std::find(nodes.begin(), nodes.end(), my_node) != nodes.end()) {
    HealthPlan longer = plan_;
    longer.allreduce_repetitions *= plan_.retest_attempts;
    out.update(probe_allreduce(world_, *node_comm_, longer, ctx));
  }
  return out;
}

nlohmann::json HealthRun::job_phase() {
  std::vector<int> all(static_cast<std::size_t>(connector_.size()));
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  return phase(
      "job", [&](PhaseContext& ctx) { return probe_allreduce(world_, *world_comm_, plan_, ctx); },
      [&](const PhaseResult& r, nlohmann::json&) {
        return allreduce_checks(r, "job", {all}, {"job"}, {""}, plan_, nullptr);
      });
}

nlohmann::json HealthRun::links_phase() {
  // Every rank builds the same schedule from the node count and the seed.
  const LinkSchedule schedule = link_schedule(static_cast<int>(topo_.hosts.size()), plan_.links, plan_.link_seed);
  const std::vector<NodePair> pairs = schedule.in_order();
  return phase(
      "links",
      [&](PhaseContext& ctx) {
        auto sent = probe_links(world_, *world_comm_, topo_.leaders, pairs, plan_, ctx);
        const int node = topo_.node_of_rank[static_cast<std::size_t>(connector_.rank())];
        if (topo_.leaders[static_cast<std::size_t>(node)] == connector_.rank()) add_nic_sent(sent, read_nic_rate("/"));
        return sent;
      },
      [&](const PhaseResult& r, nlohmann::json& decision) {
        links_ = link_checks(r, topo_, plan_);
        auto nics = nic_checks(nic_rates_sent(r, topo_), topo_, links_.node_summaries);
        links_.node_summaries.insert(links_.node_summaries.end(), nics.begin(), nics.end());
        isolation_ = plan_isolation(static_cast<int>(topo_.hosts.size()), links_.bad, links_.good, links_.score);
        decision["retests"] = pairs_json(isolation_.in_order());
        // A re-test that passes the links' bound needs no second attempt.
        decision["retest_pass_gbps"] = links_.bandwidth_bound ? links_.bandwidth_bound->bound : 0.0;
        auto checks = links_.checks;
        checks.insert(checks.end(), links_.node_summaries.begin(), links_.node_summaries.end());
        return checks;
      },
      link_phase_timeout_s(plan_.timeout_s, schedule.rounds.size()));
}

// The retests the root planned after the links phase, one pair at a time per node (every node takes them in plan
// order).
nlohmann::json HealthRun::isolation_phase() {
  const auto retests = pairs_of(decision_.value("retests", nlohmann::json::array()));
  const double pass = decision_.value("retest_pass_gbps", 0.0);
  return phase(
      "isolation",
      [&](PhaseContext& ctx) {
        return probe_links(world_, *world_comm_, topo_.leaders, retests, plan_, ctx, pass, plan_.retest_attempts);
      },
      [&](const PhaseResult& r, nlohmann::json&) { return isolation_checks(r, topo_, isolation_, links_, plan_); },
      link_phase_timeout_s(plan_.timeout_s, into_rounds(retests).size()));
}

nlohmann::json HealthRun::stragglers_phase() {
  return phase(
      "stragglers", [&](PhaseContext& ctx) { return probe_stragglers(world_, *world_comm_, plan_, ctx); },
      [&](const PhaseResult& r, nlohmann::json&) { return straggler_checks(r, topo_, plan_, steady_offset_ns_); });
}

nlohmann::json HealthRun::soak_phase() {
  return phase(
      "soak", [&](PhaseContext& ctx) { return probe_soak(world_, *world_comm_, plan_, ctx); },
      [&](const PhaseResult& r, nlohmann::json&) { return soak_checks(r, topo_, plan_); }, soak_phase_timeout_s(plan_));
}

BenchmarkOutcome HealthRun::finish() {
  const std::string abandoned = decision_.value("abandon", std::string());
  nlohmann::json ending = {{"exit", 0}, {"abandon", abandoned}};
  // The root's verdict is every rank's: the runner's farewell shares it.
  if (root_) ending["exit"] = findings_.conclude(topo_, abandoned, last_phase_);
  BenchmarkOutcome outcome;
  if (root_ && plan_.slurm_drain) outcome.warnings = drain_in_slurm();
  outcome.exit_code = ending["exit"].get<int>();
  outcome.abandon = abandoned;
  if (!abandoned.empty()) outcome.abandon_step = StepKind::health_phase;
  if (!abandoned.empty() && !root_) {
    // The root's verdict is the job's: it leaves first. A rank that never heard it says why it ends unknown.
    outcome.exit_code = decision_.value("exit", static_cast<int>(Status::failed));
    if (decision_.contains("exit")) {
      fmt::print(stderr, "error: rank {} ({}): health phase {}: {}\n", connector_.rank(),
                 escape_text(connector_.hostname()), last_phase_, abandoned);
    }
  }
  return outcome;
}

// Within -T: the other ranks wait for the root at the farewell 2 x -T from their own arrival there (cli/runner.cpp).
std::vector<Warning> HealthRun::drain_in_slurm() {
  const ArmedStep step = watchdog_.arm(StepKind::finish, "health --slurm-drain: scontrol on the root");
  std::vector<SlurmCandidate> nodes;
  const std::vector<NodeVerdict>& verdicts = findings_.node_verdicts_concluded();
  for (std::size_t n = 0; n < verdicts.size(); ++n) {
    const std::string slurm = n < slurm_names_.size() ? slurm_names_[n] : std::string();
    nodes.push_back(
        {verdicts[n].host, slurm.empty() ? verdicts[n].host : slurm, verdicts[n].status, verdicts[n].reason});
  }
  SlurmDrainSettings settings;
  settings.budget_s = plan_.timeout_s;
  const char* path = std::getenv("PATH");  // unset (a prolog's bare environment): where execvp looks then
  settings.path = path == nullptr ? "/bin:/usr/bin" : path;
  settings.scontrol = find_on_path("scontrol", settings.path).value_or("");
  SlurmDrainOutcome done = health::drain_in_slurm(nodes, settings);
  findings_.add_after_verdict(done.records);
  return done.warnings;
}

}  // namespace distbench::health
