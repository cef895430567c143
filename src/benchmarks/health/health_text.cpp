#include "benchmarks/health/health_text.hpp"

#include "benchmarks/health/health_record.hpp"
#include "benchmarks/health/slurm_drain.hpp"
#include "benchmarks/health/verdict.hpp"

#include "core/report/text.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace distbench::health {
namespace {

std::vector<Check> checks_of(const std::vector<Record>& records) {
  std::vector<Check> out;
  for (const Record& r : records) {
    if (r.kind == "health") out.push_back(check_of(r));
  }
  return out;
}

// --slurm-drain's records, as lines: what was drained, resumed, left drained or not found, and the calls' summary.
std::vector<std::string> slurm_lines(const std::vector<Check>& checks) {
  std::vector<std::string> lines;
  std::string summary;
  for (const Check& c : checks) {
    if (c.phase != "slurm") continue;
    const std::string node =
        escape_text(c.subject) +
        (c.key.empty() || c.key == c.subject ? "" : fmt::format(" (Slurm node {})", escape_text(c.key)));
    const std::string why = escape_text(c.why);
    const bool done = c.value == 0;
    if (c.metric == "slurm.drain")
      lines.push_back(fmt::format("{} {}: {}", done ? "drained" : "could not drain", node, why));
    if (c.metric == "slurm.resume") {
      lines.push_back(fmt::format("{} {}: {}", done ? "resumed" : "could not resume", node, why));
    }
    if (c.metric == "slurm.left_drained") lines.push_back(fmt::format("left {} drained: {}", node, why));
    if (c.metric == "slurm.not_in_slurm") lines.push_back(fmt::format("not in Slurm: {}: {}", node, why));
    if (c.metric == "slurm.query") lines.push_back(fmt::format("could not read Slurm's node states: {}", why));
    if (c.metric == "slurm.seconds") summary = fmt::format("{} in {:.2f} s ({})", why, c.value, escape_text(c.limit));
  }
  if (!summary.empty()) lines.push_back(summary);
  return lines;
}

// The printed drain lines of the bad nodes (no --slurm-drain): each word shell-quoted.
std::vector<std::string> drain_command_lines(const std::vector<Check>& verdicts) {
  std::vector<std::string> drain;
  for (const Check& v : verdicts) {
    if (v.metric == "node.status" && (v.status == Status::degraded || v.status == Status::failed)) {
      // Host names come from the machines (and a report may carry any): quoted, so that piping these lines to a
      // shell drains a node named "x;touch PWN" instead of running its name.
      drain.push_back(fmt::format("scontrol update nodename={} state=drain reason={}",
                                  shell_quote(escape_text(v.subject)), shell_quote(drain_reason(v.status, v.why))));
    }
  }
  return drain;
}

// Every node's verdict, or (`all` false) those of the nodes that are not healthy, with how many healthy nodes are
// left out; then the job's, where a reason of its own decided it (the headline has its status).
std::vector<std::string> verdict_lines(const std::vector<Check>& verdicts, bool all) {
  std::vector<const Check*> shown;
  std::size_t healthy_left_out = 0;
  const Check* job = nullptr;
  for (const Check& v : verdicts) {
    if (v.metric == "cluster.status") {
      job = &v;
    } else if (all || v.status != Status::healthy) {
      shown.push_back(&v);
    } else {
      ++healthy_left_out;
    }
  }
  std::size_t host_w = 4;
  for (const Check* v : shown) host_w = std::max(host_w, escape_text(v->subject).size());
  std::vector<std::string> lines{fmt::format("{:<{}}  {:<8}  {}", "node", host_w, "verdict", "reason")};
  for (const Check* v : shown) {
    lines.push_back(fmt::format("{:<{}}  {:<8}  {}", escape_text(v->subject), host_w, name(v->status),
                                v->why.empty() ? "-" : escape_text(v->why)));
  }
  if (healthy_left_out > 0) {
    lines.push_back(fmt::format("({} more {}, healthy)", healthy_left_out, healthy_left_out == 1 ? "node" : "nodes"));
  }
  // The job's reason when it is more than the list of the nodes that are not healthy (the check's own failure).
  std::string nodes_listed;
  for (const Check& v : verdicts) {
    if (v.metric == "node.status" && v.status != Status::healthy) {
      nodes_listed += fmt::format("{}{} {}", nodes_listed.empty() ? "" : ", ", v.subject, name(v.status));
    }
  }
  if (job != nullptr && !job->why.empty() && job->why != nodes_listed) {
    lines.push_back(fmt::format("the job: {}: {}", name(job->status), escape_text(job->why)));
  }
  return lines;
}

// Each node's median link as a fraction of its NIC's rate (node.link.fraction_of_nic): the median over nodes and
// the lowest, with its NIC; empty when no node's rate was read.
std::string nic_fraction_line(const std::vector<Check>& checks) {
  std::vector<const Check*> fractions;
  std::map<std::string, const Check*> nic_of;
  for (const Check& c : checks) {
    if (c.metric == "node.link.fraction_of_nic") fractions.push_back(&c);
    if (c.metric == "node.nic.link_gbps") nic_of[c.subject] = &c;
  }
  if (fractions.empty()) return {};
  std::stable_sort(fractions.begin(), fractions.end(),
                   [](const Check* a, const Check* b) { return a->value < b->value; });
  const Check* low = fractions.front();
  const auto nic = nic_of.find(low->subject);
  return fmt::format(
      "of the NIC: the median link is {:.0f} % of its node's NIC rate (median over {}); lowest {} "
      "{:.0f} % ({})",
      100 * fractions[fractions.size() / 2]->value, plural(fractions.size(), "node", "nodes"),
      escape_text(low->subject), 100 * low->value,
      nic == nic_of.end() ? std::string("-") : escape_text(nic->second->limit));
}

// The links in a few lines, from each node's summary of its own: the median over nodes of their median link, the
// nodes with the slowest links (with the peer), and how many links were suspects.
std::vector<std::string> link_summary_lines(const std::vector<Check>& checks) {
  std::vector<const Check*> lows;
  std::vector<double> medians;
  std::size_t suspects = 0, measured = 0;
  for (const Check& c : checks) {
    if (c.metric == "node.link.min_gbps") lows.push_back(&c);
    if (c.metric == "node.link.median_gbps") medians.push_back(c.value);
    if (c.metric == "link.bandwidth_gbps" && c.status != Status::healthy) ++suspects;
    if (c.metric == "isolation.bandwidth_gbps") ++measured;
  }
  if (lows.empty()) return {};
  std::sort(lows.begin(), lows.end(), [](const Check* a, const Check* b) { return a->value < b->value; });
  std::sort(medians.begin(), medians.end());
  std::vector<std::string> lines{fmt::format("{} with links measured; their median link {:.4g} GB/s",
                                             plural(lows.size(), "node", "nodes"), medians[medians.size() / 2])};
  // The three slowest links, each once (it is the slowest of both its ends, often).
  std::string slowest;
  std::set<std::pair<std::string, std::string>> listed;
  for (std::size_t i = 0; i < lows.size() && listed.size() < 3; ++i) {
    const auto& [a, b] = std::minmax(lows[i]->subject, lows[i]->peer);
    if (!listed.insert({a, b}).second) continue;
    slowest += fmt::format("{}{} {:.4g} GB/s (with {})", slowest.empty() ? "" : ", ", escape_text(lows[i]->subject),
                           lows[i]->value, escape_text(lows[i]->peer));
  }
  lines.push_back("slowest links: " + slowest);
  if (auto nic = nic_fraction_line(checks); !nic.empty()) lines.push_back(std::move(nic));
  lines.push_back(fmt::format("suspects: {} (below the bound while measured among others); re-tests alone: {}",
                              plural(suspects, "direction", "directions"),
                              plural(measured, "direction", "directions")));
  return lines;
}

// Rows send to columns; '*' marks a figure that broke its bound.
std::vector<std::string> matrix_lines(const std::vector<Check>& checks, const std::string& metric,
                                      const std::string& separator, bool symmetric) {
  std::vector<std::string> hosts;
  std::map<std::pair<std::string, std::string>, const Check*> cell;
  for (const Check& c : checks) {
    if (c.metric != metric) continue;
    const auto at = c.subject.find(separator);
    if (at == std::string::npos) continue;
    const std::string a = c.subject.substr(0, at), b = c.subject.substr(at + separator.size());
    for (const auto& h : {a, b}) {
      if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
    }
    cell[{a, b}] = &c;
    if (symmetric) cell[{b, a}] = &c;
  }
  if (hosts.empty()) return {};
  std::sort(hosts.begin(), hosts.end());
  std::size_t w = 9;
  for (const auto& h : hosts) w = std::max(w, h.size() + 1);
  std::string head = fmt::format("{:<{}}", symmetric ? "" : "from\\to", w);
  for (const auto& h : hosts) head += fmt::format(" {:>{}}", h, w);
  std::vector<std::string> lines{head};
  for (const auto& a : hosts) {
    std::string line = fmt::format("{:<{}}", a, w);
    for (const auto& b : hosts) {
      auto it = cell.find({a, b});
      std::string v = a == b ? "-" : "?";
      if (it != cell.end()) {
        v = fmt::format("{:.4g}{}", it->second->value, it->second->status == Status::healthy ? "" : "*");
      }
      line += fmt::format(" {:>{}}", v, w);
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace

bool console_row(const Record& record) {
  const Check c = check_of(record);
  return record.kind == "health" && c.status != Status::healthy && !c.screening && c.phase != "verdict";
}

std::vector<TextSection> health_sections(const std::vector<Record>& records, bool every_check) {
  const auto checks = checks_of(records);
  std::vector<Check> verdicts, phases;
  for (const Check& c : checks) {
    if (c.metric == "node.status" || c.metric == "cluster.status") verdicts.push_back(c);
    if (c.metric == "phase.seconds") phases.push_back(c);
  }
  std::vector<TextSection> out;
  if (!verdicts.empty()) out.push_back({"Verdict per node", verdict_lines(verdicts, every_check)});
  if (every_check) {
    auto bw = matrix_lines(checks, "link.bandwidth_gbps", "->", false);
    if (!bw.empty()) out.push_back({"Link bandwidth (GB/s; row sends to column; * beyond its bound)", bw});
    auto lat = matrix_lines(checks, "link.latency_us", "<->", true);
    if (!lat.empty()) out.push_back({"Link latency (us, one way; * beyond its bound)", lat});
  } else if (auto links = link_summary_lines(checks); !links.empty()) {
    out.push_back({"Links (from each node's slowest and median link; the suspects in the reports)", links});
  }
  if (!phases.empty()) {
    std::vector<std::string> lines;
    for (const Check& p : phases) {
      lines.push_back(fmt::format("{:<11} {:>8.2f} s  {}", p.subject, p.value, p.why.empty() ? "" : p.why));
    }
    out.push_back({"Phase times", lines});
  }
  // With --slurm-drain what scontrol did; without, the lines that would drain the bad nodes.
  if (auto slurm = slurm_lines(checks); !slurm.empty()) {
    out.push_back({"Slurm (--slurm-drain)", slurm});
  } else if (auto drain = drain_command_lines(verdicts); !drain.empty()) {
    out.push_back({"Slurm: to drain the bad nodes (printed, not run)", drain});
  }
  return out;
}

std::vector<SummaryItem> health_summary(const std::vector<Record>& records) {
  const auto checks = checks_of(records);
  std::map<Status, int> count;
  int nodes = 0;
  const Check* cluster = nullptr;
  for (const Check& c : checks) {
    if (c.metric == "node.status") {
      ++nodes;
      ++count[c.status];
    }
    if (c.metric == "cluster.status") cluster = &c;
  }
  if (cluster == nullptr) return {};
  std::string text = std::string(name(cluster->status));
  std::string parts;
  for (Status s : {Status::failed, Status::degraded, Status::unknown, Status::healthy}) {
    if (count[s] > 0) parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", count[s], name(s));
  }
  text += fmt::format(" ({}; {} node{}", parts, nodes, nodes == 1 ? "" : "s");
  Status worst_node = Status::healthy;
  for (const auto& [s, n] : count) {
    if (n > 0) worst_node = worse(worst_node, s);
  }
  if (worse(worst_node, cluster->status) != worst_node) text += fmt::format("; the job {}", name(cluster->status));
  text += ")";
  return {{"status", "Health", static_cast<double>(static_cast<int>(cluster->status)), text}};
}

}  // namespace distbench::health
