#include "benchmarks/health/evaluate.hpp"

#include "core/device/collective.hpp"
#include "core/measure/stats.hpp"
#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace distbench::health {
namespace {

double rule_number(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : kNotMeasured;
}

// One group's allreduce from its ranks' results: bus bandwidth from the slowest rank's best time, and the wrong
// elements over all ranks; nullopt when a rank's result is missing.
struct GroupAllreduce {
  double busbw_gbps = 0;
  double wrong = 0;
};
std::optional<GroupAllreduce> group_allreduce(const PhaseResult& phase, const std::vector<int>& ranks) {
  double slowest = 0, bytes = 0;
  GroupAllreduce out;
  for (int r : ranks) {
    const auto& j = phase.ranks[static_cast<std::size_t>(r)];
    if (!j || !j->contains("best_s")) return std::nullopt;
    slowest = std::max(slowest, rule_number(*j, "best_s"));
    out.wrong += rule_number(*j, "wrong");
    bytes = rule_number(*j, "bytes");
  }
  out.busbw_gbps = bytes / slowest / 1e9 * bus_factor(Collective::allreduce, static_cast<int>(ranks.size()));
  return out;
}

NodePair ordered_pair(int a, int b) { return {std::min(a, b), std::max(a, b)}; }

double median_of(std::vector<double> v) {
  if (v.empty()) return kNotMeasured;
  return summarize(v).median;
}

}  // namespace

std::string Topology::link_name(int from, int to) const {
  return fmt::format("{}->{}", hosts[static_cast<std::size_t>(from)], hosts[static_cast<std::size_t>(to)]);
}

Topology make_topology(const std::vector<int>& node_of_rank, const std::vector<std::string>& host_of_rank) {
  Topology t;
  t.node_of_rank = node_of_rank;
  for (std::size_t r = 0; r < node_of_rank.size(); ++r) {
    const auto n = static_cast<std::size_t>(node_of_rank[r]);
    if (n >= t.ranks_of_node.size()) {
      t.ranks_of_node.resize(n + 1);
      t.hosts.resize(n + 1);
      t.leaders.resize(n + 1, -1);
    }
    if (t.ranks_of_node[n].empty()) {
      t.hosts[n] = host_of_rank[r];
      t.leaders[n] = static_cast<int>(r);
    }
    t.ranks_of_node[n].push_back(static_cast<int>(r));
  }
  return t;
}

void apply_plan_rules(std::vector<Check>& checks, const HealthPlan& plan) {
  std::vector<Rule> rules = plan.rules.rules;
  if (plan.expect_busbw_gbps)
    rules.push_back({"job.allreduce.busbw_gbps", ">=", *plan.expect_busbw_gbps, Status::degraded});
  for (Check& c : checks) apply_rules(c, rules);
}

Check root_late_check(const std::string& phase, const Topology& topo, int root, double behind_s, double timeout_s) {
  Check c = make_check(phase, fmt::format("rank {}", root), topo.host_of(root), "phase.arrived", kNotMeasured, "");
  c.status = Status::failed;
  c.why = fmt::format(
      "TIMEOUT: this rank, the root, was {:.3g} s late in phase {} (timeout {:g} s): it "
      "was stopped or starved",
      behind_s, phase, timeout_s);
  return c;
}

std::vector<Check> arrival_checks(const PhaseResult& phase, const Topology& topo, double timeout_s, int root) {
  std::vector<Check> out;
  const auto missing = phase.missing();
  if (phase.root_late()) out.push_back(root_late_check(phase.name, topo, root, phase.root_behind_s, timeout_s));
  for (int r : missing) {
    Check c = make_check(phase.name, fmt::format("rank {}", r), topo.host_of(r), "phase.arrived", kNotMeasured, "");
    c.status = phase.root_late() ? Status::unknown : Status::failed;
    c.why = phase.root_late()
                ? fmt::format("not heard from by the end of phase {}: the root itself was late", phase.name)
                : fmt::format("TIMEOUT: did not arrive at the end of phase {} within {:g} s", phase.name, timeout_s);
    out.push_back(std::move(c));
  }
  const bool someone_late = !missing.empty() || phase.root_late();
  for (const auto& [r, error] : phase.failures()) {
    if (phase.root_late() && r == root) continue;  // its lateness is the finding
    Check c = make_check(phase.name, fmt::format("rank {}", r), topo.host_of(r), "phase.completed", kNotMeasured, "");
    c.status = someone_late ? Status::unknown : Status::failed;
    c.why = someone_late ? fmt::format("waiting for a rank that did not arrive in time: {}", error) : error;
    out.push_back(std::move(c));
  }
  return out;
}

double Screening::bound_of(const std::string& metric) const {
  const auto it = bounds.find(metric);
  return it == bounds.end() ? 0.0 : it->second.bound;
}

namespace {

// The per-rank bandwidths a rank probe reports, and their metrics.
const std::vector<std::pair<std::string, std::string>>& rank_bandwidths() {
  static const std::vector<std::pair<std::string, std::string>> keys = {
      {"copy_gbps", "memory.copy_gbps"}, {"h2d_gbps", "device.h2d_gbps"}, {"d2h_gbps", "device.d2h_gbps"}};
  return keys;
}

}  // namespace

std::vector<Check> rank_checks(const PhaseResult& phase, const Topology& topo, const HealthPlan& plan,
                               Screening& screen) {
  std::vector<Check> out;
  std::vector<Check> figures;
  std::vector<int> rank_of_figure;  // beside `figures`
  for (std::size_t r = 0; r < phase.ranks.size(); ++r) {
    const auto& j = phase.ranks[r];
    if (!j || j->contains("error")) continue;
    const std::string subject = fmt::format("rank {}", r);
    const std::string& host = topo.host_of(static_cast<int>(r));
    Check wrong = make_check("rank", subject, host, "memory.wrong", rule_number(*j, "wrong"), "elements");
    wrong.limit = "== 0";
    if (wrong.value != 0) {
      wrong.status = Status::failed;
      wrong.why = fmt::format("{:.0f} of the elements written to {:.0f} bytes read back wrong", wrong.value,
                              rule_number(*j, "memory_bytes"));
    }
    out.push_back(std::move(wrong));
    for (const auto& [key, metric] : rank_bandwidths()) {
      if (!j->contains(key)) continue;
      Check c = make_check("rank", subject, host, metric, rule_number(*j, key.c_str()), "GB/s");
      c.screening = true;
      figures.push_back(std::move(c));
      rank_of_figure.push_back(static_cast<int>(r));
    }
  }
  for (const auto& [key, metric] : rank_bandwidths()) {
    std::vector<Check*> group;
    for (Check& c : figures) {
      if (c.metric == metric) group.push_back(&c);
    }
    if (!plan.rules.relative || group.empty()) continue;
    if (auto bound = judge_relative(group, Better::higher, plan.bandwidth)) screen.bounds[metric] = *bound;
  }
  apply_plan_rules(figures, plan);
  for (std::size_t k = 0; k < figures.size(); ++k) {
    const int r = rank_of_figure[k];
    if (figures[k].status != Status::healthy &&
        std::find(screen.suspects.begin(), screen.suspects.end(), r) == screen.suspects.end()) {
      screen.suspects.push_back(r);
    }
  }
  std::sort(screen.suspects.begin(), screen.suspects.end());
  apply_plan_rules(out, plan);
  out.insert(out.end(), figures.begin(), figures.end());
  return out;
}

std::vector<Check> clock_checks(const PhaseResult& phase, const Topology& topo, const HealthPlan& plan,
                                std::vector<double>& steady_offset_ns) {
  std::vector<Check> out;
  steady_offset_ns.assign(topo.hosts.size(), 0.0);
  const auto& root = phase.ranks.empty() ? std::nullopt : phase.ranks.front();
  if (!root || !root->contains("nodes")) return out;
  for (const auto& node : (*root)["nodes"]) {
    const int rank = node["rank"].get<int>();
    const auto n = static_cast<std::size_t>(topo.node_of_rank[static_cast<std::size_t>(rank)]);
    steady_offset_ns[n] = node["steady_offset_ns"].get<double>();
    Check c = make_check("clock", topo.hosts[n], topo.hosts[n], "clock.skew_ms",
                         std::abs(node["wall_offset_ms"].get<double>()), "ms");
    c.limit = fmt::format("<= {:g} ms", plan.clock_skew_ms);
    if (c.value > plan.clock_skew_ms) {
      c.status = Status::degraded;
      c.why = fmt::format("its wall clock is {:+.1f} ms from the root's (round trip {:.0f} us): check NTP/chrony",
                          node["wall_offset_ms"].get<double>(), node["rtt_us"].get<double>());
    }
    out.push_back(std::move(c));
  }
  apply_plan_rules(out, plan);
  return out;
}

std::vector<Check> allreduce_checks(const PhaseResult& phase, const std::string& scope,
                                    const std::vector<std::vector<int>>& groups,
                                    const std::vector<std::string>& subjects, const std::vector<std::string>& hosts,
                                    const HealthPlan& plan, Screening* screening) {
  std::vector<Check> out;
  const std::string busbw_metric = scope + ".allreduce.busbw_gbps";
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto figures = group_allreduce(phase, groups[g]);
    if (!figures) continue;  // arrival_checks says why
    const double wrong = figures->wrong;
    Check w = make_check(scope, subjects[g], hosts[g], scope + ".allreduce.wrong", wrong, "elements");
    w.limit = "== 0";
    if (wrong != 0) {
      w.status = Status::failed;
      w.why = fmt::format("{:.0f} wrong elements over {} ranks: this group's results cannot be trusted", wrong,
                          groups[g].size());
    }
    out.push_back(std::move(w));
    if (groups[g].size() > 1) {
      Check c = make_check(scope, subjects[g], hosts[g], busbw_metric, figures->busbw_gbps, "GB/s");
      c.screening = screening != nullptr;
      out.push_back(std::move(c));
    }
  }
  std::vector<Check*> group;
  for (Check& c : out) {
    if (c.metric == busbw_metric) group.push_back(&c);
  }
  if (screening != nullptr && plan.rules.relative) {
    if (auto bound = judge_relative(group, Better::higher, plan.bandwidth)) screening->bounds[busbw_metric] = *bound;
  }
  apply_plan_rules(out, plan);
  if (screening != nullptr) {
    for (std::size_t g = 0; g < subjects.size(); ++g) {
      for (const Check* c : group) {
        if (c->subject == subjects[g] && c->status != Status::healthy)
          screening->suspects.push_back(static_cast<int>(g));
      }
    }
  }
  return out;
}

namespace {

// Each node's links, both directions: the slowest with its peer, and the median.
std::vector<Check> link_summaries(const std::vector<Check>& checks, const std::vector<NodePair>& pair_of_check,
                                  const Topology& topo) {
  const std::size_t nodes = topo.hosts.size();
  std::vector<std::vector<double>> gbps(nodes);
  std::vector<int> slowest_peer(nodes, -1);
  std::vector<double> slowest(nodes, kNotMeasured);
  for (std::size_t k = 0; k < checks.size(); ++k) {
    if (checks[k].metric != "link.bandwidth_gbps" || std::isnan(checks[k].value)) continue;
    const auto [a, b] = pair_of_check[k];
    for (const auto& [node, peer] : {std::pair{a, b}, std::pair{b, a}}) {
      const auto n = static_cast<std::size_t>(node);
      gbps[n].push_back(checks[k].value);
      if (slowest_peer[n] < 0 || checks[k].value < slowest[n]) {
        slowest[n] = checks[k].value;
        slowest_peer[n] = peer;
      }
    }
  }
  std::vector<Check> out;
  for (std::size_t n = 0; n < nodes; ++n) {
    if (gbps[n].empty()) continue;
    const std::string& host = topo.hosts[n];
    Check low = make_check("links", host, host, "node.link.min_gbps", slowest[n], "GB/s");
    low.peer = topo.hosts[static_cast<std::size_t>(slowest_peer[n])];
    low.limit = fmt::format("the slowest of its {} links (both directions)", gbps[n].size());
    out.push_back(std::move(low));
    Check mid = make_check("links", host, host, "node.link.median_gbps", median_of(gbps[n]), "GB/s");
    mid.limit = fmt::format("the median of its {} links (both directions)", gbps[n].size());
    out.push_back(std::move(mid));
  }
  return out;
}

}  // namespace

LinkJudgement link_checks(const PhaseResult& phase, const Topology& topo, const HealthPlan& plan) {
  LinkJudgement out;
  const auto nodes = static_cast<int>(topo.hosts.size());
  std::vector<std::vector<double>> node_gbps(static_cast<std::size_t>(nodes));
  std::vector<NodePair> pair_of_check;  // beside out.checks
  for (int leader : topo.leaders) {
    const auto& j = phase.ranks[static_cast<std::size_t>(leader)];
    if (!j || !j->contains("links")) continue;
    for (const auto& link : (*j)["links"]) {
      const int from = link["from"].get<int>(), to = link["to"].get<int>();
      pair_of_check.push_back({std::min(from, to), std::max(from, to)});
      if (link.contains("gbps")) {
        const double g = link["gbps"].get<double>();
        out.checks.push_back(make_check("links", topo.link_name(from, to), "", "link.bandwidth_gbps", g, "GB/s"));
        out.checks.back().screening = true;
      } else {
        out.checks.push_back(make_check("links",
                                        fmt::format("{}<->{}", topo.hosts[static_cast<std::size_t>(from)],
                                                    topo.hosts[static_cast<std::size_t>(to)]),
                                        "", "link.latency_us", link["latency_us"].get<double>(), "us"));
        out.checks.back().screening = true;
      }
    }
  }
  if (plan.rules.relative) {
    std::vector<Check*> bw, lat;
    for (Check& c : out.checks) (c.metric == "link.bandwidth_gbps" ? bw : lat).push_back(&c);
    out.bandwidth_bound = judge_relative(bw, Better::higher, plan.bandwidth);
    judge_relative(lat, Better::lower, plan.latency);
  }
  apply_plan_rules(out.checks, plan);
  // A pair is bad when any of its figures is; each node's score is the median over its pairs of the pair's slower
  // direction.
  std::map<NodePair, bool> pair_bad;
  std::map<NodePair, double> slower;
  for (std::size_t k = 0; k < out.checks.size(); ++k) {
    const Check& c = out.checks[k];
    const NodePair& p = pair_of_check[k];
    pair_bad[p] = pair_bad[p] || c.status != Status::healthy;
    if (c.metric == "link.bandwidth_gbps") slower[p] = slower.contains(p) ? std::min(slower[p], c.value) : c.value;
  }
  for (const auto& [p, bad] : pair_bad) (bad ? out.bad : out.good).push_back(p);
  for (const auto& [p, g] : slower) {
    node_gbps[static_cast<std::size_t>(p.first)].push_back(g);
    node_gbps[static_cast<std::size_t>(p.second)].push_back(g);
  }
  for (const auto& v : node_gbps) out.score.push_back(median_of(v));
  out.node_summaries = link_summaries(out.checks, pair_of_check, topo);
  return out;
}

namespace {

// The links a node's leader measured and sent, or nothing (the leader did not report, or measured none).
const nlohmann::json* links_sent_by(const PhaseResult& phase, const Topology& topo, int node) {
  const auto& j = phase.ranks[static_cast<std::size_t>(topo.leaders[static_cast<std::size_t>(node)])];
  if (!j || !j->contains("links")) return nullptr;
  return &(*j)["links"];
}

// A re-test's figure against the links' bound, where there is one: its limit set, and whether it breaks it.
bool breaks_link_bound(Check& c, const LinkJudgement& links) {
  if (!links.bandwidth_bound) return false;
  c.limit = links.bandwidth_bound->limit_text("GB/s");
  return links.bandwidth_bound->breaks(c.value);
}

std::string retests_text(const nlohmann::json& link) {
  return plural(link.value("attempts", std::size_t{1}), "re-test", "re-tests");
}

// Suspects with no reference to test against: degraded, since nothing can clear them.
void add_unisolated(std::vector<Check>& out, const Topology& topo, const IsolationPlan& iso) {
  for (int n : iso.cannot_isolate) {
    Check c = make_check("isolation", topo.hosts[static_cast<std::size_t>(n)], topo.hosts[static_cast<std::size_t>(n)],
                         "isolation.isolated", 0, "");
    c.status = Status::degraded;
    c.why = "in a slow pair, and no node is known good to re-test it against";
    out.push_back(std::move(c));
  }
}

// Each suspect against its reference, both directions: slow still, the suspect is the node to blame.
void add_suspect_retests(std::vector<Check>& out, const PhaseResult& phase, const Topology& topo,
                         const IsolationPlan& iso, const LinkJudgement& links) {
  for (const auto& [suspect, reference] : iso.retests) {
    for (int sender : {suspect, reference}) {  // each leader reports the directions it sent
      const nlohmann::json* sent = links_sent_by(phase, topo, sender);
      if (!sent) continue;
      for (const auto& link : *sent) {
        const int from = link["from"].get<int>(), to = link["to"].get<int>();
        const bool this_pair = (from == suspect && to == reference) || (from == reference && to == suspect);
        if (!this_pair || !link.contains("gbps")) continue;
        Check c = make_check("isolation", topo.link_name(from, to), topo.hosts[static_cast<std::size_t>(suspect)],
                             "isolation.bandwidth_gbps", link["gbps"].get<double>(), "GB/s");
        if (breaks_link_bound(c, links)) {
          c.status = Status::degraded;
          c.why = fmt::format("best of {} alone against {}: {:.3f} x the links' median", retests_text(link),
                              topo.hosts[static_cast<std::size_t>(reference)], c.value / links.bandwidth_bound->median);
        }
        out.push_back(std::move(c));
      }
    }
  }
}

// A suspect link measured again alone: slow still, between nodes that are each at speed with another, it is the
// link (a cable, a port); it counts against the cluster, not a node.
void add_link_retests(std::vector<Check>& out, const PhaseResult& phase, const Topology& topo, const IsolationPlan& iso,
                      const LinkJudgement& links) {
  for (const auto& [a, b] : iso.link_retests) {
    for (int sender : {a, b}) {
      const nlohmann::json* sent = links_sent_by(phase, topo, sender);
      if (!sent) continue;
      for (const auto& link : *sent) {
        const int from = link["from"].get<int>(), to = link["to"].get<int>();
        if (!link.contains("gbps") || ordered_pair(from, to) != NodePair{a, b}) continue;
        Check c = make_check("isolation", topo.link_name(from, to), "", "isolation.bandwidth_gbps",
                             link["gbps"].get<double>(), "GB/s");
        if (breaks_link_bound(c, links)) {
          c.status = Status::degraded;
          c.why = fmt::format(
              "this link alone, best of {}: {:.3f} x the links' median; its nodes are slow with no "
              "other peer: the link (cable, port, switch path)",
              retests_text(link), c.value / links.bandwidth_bound->median);
        }
        out.push_back(std::move(c));
      }
    }
  }
}

// Absolute link rules hold for the re-tests too.
void apply_link_rules(std::vector<Check>& checks, const HealthPlan& plan) {
  std::vector<Rule> link_rules;
  for (const Rule& r : plan.rules.rules) {
    if (glob_match(r.metric, "link.bandwidth_gbps"))
      link_rules.push_back({"isolation.bandwidth_gbps", r.compare, r.threshold, r.severity});
  }
  for (Check& c : checks) apply_rules(c, link_rules);
}

}  // namespace

std::vector<Check> isolation_checks(const PhaseResult& phase, const Topology& topo, const IsolationPlan& iso,
                                    const LinkJudgement& links, const HealthPlan& plan) {
  std::vector<Check> out;
  add_unisolated(out, topo, iso);
  add_suspect_retests(out, phase, topo, iso, links);
  add_link_retests(out, phase, topo, iso, links);
  apply_link_rules(out, plan);
  return out;
}

std::vector<Check> confirm_checks(const PhaseResult& phase, const Topology& topo, const Screening& rank,
                                  const Screening& node, const HealthPlan& plan) {
  std::vector<Check> out;
  auto judge = [](Check& c, const Screening& screen) {
    const auto it = screen.bounds.find(c.metric);
    if (it == screen.bounds.end()) return;
    c.limit = it->second.limit_text(c.unit);
    if (it->second.breaks(c.value)) {
      c.status = Status::degraded;
      c.why = fmt::format("{:.2f} x the median, measured alone", c.value / it->second.median);
    }
  };
  for (int r : rank.suspects) {
    const auto& j = phase.ranks[static_cast<std::size_t>(r)];
    if (!j) continue;
    for (const auto& [key, metric] : rank_bandwidths()) {
      if (!j->contains(key)) continue;
      Check c = make_check("confirm", fmt::format("rank {}", r), topo.host_of(r), metric, rule_number(*j, key.c_str()),
                           "GB/s");
      judge(c, rank);
      out.push_back(std::move(c));
    }
  }
  for (int n : node.suspects) {
    const auto figures = group_allreduce(phase, topo.ranks_of_node[static_cast<std::size_t>(n)]);
    if (!figures) continue;
    const std::string& host = topo.hosts[static_cast<std::size_t>(n)];
    Check c = make_check("confirm", host, host, "node.allreduce.busbw_gbps", figures->busbw_gbps, "GB/s");
    judge(c, node);
    out.push_back(std::move(c));
  }
  apply_plan_rules(out, plan);
  return out;
}

std::vector<Check> straggler_checks(const PhaseResult& phase, const Topology& topo, const HealthPlan& plan,
                                    const std::vector<double>& steady_offset_ns) {
  std::vector<Check> out;
  const std::size_t ranks = phase.ranks.size();
  std::vector<std::vector<double>> arrival(ranks);
  std::vector<double> work_us(ranks, kNotMeasured);
  std::size_t iterations = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto& j = phase.ranks[r];
    if (!j || !j->contains("arrival_ns")) return out;  // arrival_checks says why
    const double offset = steady_offset_ns[static_cast<std::size_t>(topo.node_of_rank[r])];
    for (const auto& t : (*j)["arrival_ns"]) arrival[r].push_back(t.get<double>() - offset);
    if (j->contains("work_ns")) {
      std::vector<double> w;
      for (const auto& t : (*j)["work_ns"]) w.push_back(t.get<double>() / 1e3);
      work_us[r] = median_of(w);
    }
    iterations = r == 0 ? arrival[r].size() : std::min(iterations, arrival[r].size());
  }
  if (ranks < 2 || iterations == 0) return out;
  std::vector<int> last(ranks, 0);
  std::vector<std::vector<double>> lateness(ranks);
  for (std::size_t i = 0; i < iterations; ++i) {
    double first = arrival[0][i];
    std::size_t latest = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
      first = std::min(first, arrival[r][i]);
      if (arrival[r][i] > arrival[latest][i]) latest = r;
    }
    ++last[latest];
    for (std::size_t r = 0; r < ranks; ++r) lateness[r].push_back((arrival[r][i] - first) / 1e3);
  }
  const double typical_work = median_of(std::vector<double>(work_us.begin(), work_us.end()));
  for (std::size_t r = 0; r < ranks; ++r) {
    const double late_us = median_of(lateness[r]);
    const double fraction = static_cast<double>(last[r]) / static_cast<double>(iterations);
    Check c = make_check("stragglers", fmt::format("rank {}", r), topo.host_of(static_cast<int>(r)),
                         "straggler.lateness_us", late_us, "us");
    c.limit = fmt::format("last in < {:g}% of iterations, or by < {:g} us, or its work not slower",
                          plan.straggler_last_fraction * 100, plan.straggler_min_lateness_us);
    // Late because its own work is slower (a slow or busy host), not because the collective before let it go last
    // (a slow link delays the ranks it feeds).
    const bool slower_work =
        std::isnan(work_us[r]) || std::isnan(typical_work) || work_us[r] >= plan.straggler_work_factor * typical_work;
    if (fraction >= plan.straggler_last_fraction && late_us >= plan.straggler_min_lateness_us && slower_work) {
      c.status = Status::degraded;
      c.why = fmt::format(
          "last to arrive in {} of {} allreduces, {:.0f} us after the first (median); its work takes "
          "{:.0f} us, the ranks' median {:.0f} us",
          last[r], iterations, late_us, work_us[r], typical_work);
    }
    out.push_back(std::move(c));
  }
  apply_plan_rules(out, plan);
  return out;
}

}  // namespace distbench::health
