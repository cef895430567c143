#include "benchmarks/health/slurm_drain.hpp"

#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

namespace distbench::health {
namespace {

constexpr std::size_t kSlurmNameMaxBytes = 128;

// "[user@2026-11-30T06:44:37]": a user (anything but brackets and spaces), '@', then digits, '-', ':' and 'T'.
bool is_reason_stamp(std::string_view s) {
  if (s.size() < 4 || s.front() != '[' || s.back() != ']') return false;
  const auto at = s.find('@');
  if (at == std::string_view::npos || at == 1) return false;
  const std::string_view user = s.substr(1, at - 1), time = s.substr(at + 1, s.size() - at - 2);
  if (time.empty() || user.find_first_of("[] ") != std::string_view::npos) return false;
  return std::all_of(time.begin(), time.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == ':' || c == 'T';
  });
}

// The value of `key` ("State=") among the space-separated fields of `fields`, up to the next space.
std::string scontrol_field(std::string_view fields, std::string_view key) {
  std::size_t at = 0;
  while ((at = fields.find(key, at)) != std::string_view::npos) {
    if (at == 0 || fields[at - 1] == ' ') {
      const std::size_t from = at + key.size();
      return std::string(fields.substr(from, fields.find(' ', from) - from));
    }
    at += key.size();
  }
  return {};
}

void parse_node_line(std::string_view line, SlurmNodeStates& out) {
  if (line.rfind("Node ", 0) == 0 && line.size() > 15 && line.substr(line.size() - 10) == " not found") {
    out.not_found.emplace_back(line.substr(5, line.size() - 15));
    return;
  }
  if (line.rfind("NodeName=", 0) != 0) return;
  // The reason runs to the line's end (Slurm 22.05 prints it last), or to its stamp: a human's reason may hold
  // "State=" or spaces, so the other fields are read before it only.
  constexpr std::string_view kReason = " Reason=";
  const std::size_t reason_at = line.find(kReason);
  const std::string_view fields = line.substr(0, reason_at);
  SlurmNodeState s;
  s.state = scontrol_field(fields, "State=");
  if (reason_at != std::string_view::npos) s.reason = without_reason_stamp(line.substr(reason_at + kReason.size()));
  out.known[scontrol_field(fields, "NodeName=")] = std::move(s);
}

}  // namespace

std::string drain_reason(Status status, std::string_view why) {
  return excerpt(fmt::format("{} {}: {}", kDrainReasonPrefix, name(status), why), kDrainReasonCodePoints);
}

bool slurm_node_name_ok(std::string_view name) {
  if (name.empty() || name.size() > kSlurmNameMaxBytes || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
  });
}

bool is_drained(std::string_view state) {
  std::size_t at = 0;
  while (at <= state.size()) {
    std::size_t end = state.find('+', at);
    if (end == std::string_view::npos) end = state.size();
    std::string word(state.substr(at, end - at));
    std::transform(word.begin(), word.end(), word.begin(), [](char c) { return std::toupper(c); });
    while (!word.empty() && std::string_view("*~#!%$@^-").find(word.back()) != std::string_view::npos) word.pop_back();
    if (word == "DRAIN" || word == "DRAINED" || word == "DRAINING") return true;
    at = end + 1;
  }
  return false;
}

bool drained_by_distbench(const SlurmNodeState& s) {
  return is_drained(s.state) && s.reason.rfind(kDrainReasonPrefix, 0) == 0;
}

std::string without_reason_stamp(std::string_view reason) {
  for (std::size_t open = reason.rfind(" ["); open != std::string_view::npos;
       open = open == 0 ? std::string_view::npos : reason.rfind(" [", open - 1)) {
    const std::size_t close = reason.find(']', open);
    if (close != std::string_view::npos && is_reason_stamp(reason.substr(open + 1, close - open))) {
      return std::string(reason.substr(0, open));
    }
  }
  return std::string(reason);
}

SlurmNodeStates parse_node_states(std::string_view text) {
  SlurmNodeStates out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    parse_node_line(line, out);
    at = end + 1;
  }
  return out;
}

std::string_view name(SlurmStep step) {
  switch (step) {
    case SlurmStep::drain: return "drain";
    case SlurmStep::resume: return "resume";
    case SlurmStep::leave: return "left_drained";
    case SlurmStep::not_in_slurm: return "not_in_slurm";
  }
  return "?";
}

std::vector<std::string> names_to_query(const std::vector<SlurmCandidate>& nodes) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const SlurmCandidate& n : nodes) {
    if (slurm_node_name_ok(n.slurm_name) && seen.insert(n.slurm_name).second) out.push_back(n.slurm_name);
  }
  return out;
}

namespace {

// The step of a node Slurm knows, or none (healthy and not drained; unknown and not distbench's drain).
std::optional<SlurmPlanned> step_of_known(const SlurmCandidate& n, const SlurmNodeState& s) {
  const bool bad = n.status == Status::degraded || n.status == Status::failed;
  const bool ours = drained_by_distbench(s);
  if (is_drained(s.state) && !ours && (bad || n.status == Status::healthy)) {
    return SlurmPlanned{SlurmStep::leave, n, s.state,
                        fmt::format("drained by someone else: {}{}", s.reason.empty() ? "(no reason)" : s.reason,
                                    bad ? "" : "; a human must resume it")};
  }
  if (bad) return SlurmPlanned{SlurmStep::drain, n, s.state, drain_reason(n.status, n.why)};
  if (ours && n.status == Status::healthy) {
    return SlurmPlanned{SlurmStep::resume, n, s.state, "drained by distbench health before, healthy now"};
  }
  if (ours) {
    return SlurmPlanned{SlurmStep::leave, n, s.state,
                        fmt::format("drained by distbench health before, {} now, not healthy: {}", name(n.status),
                                    n.why.empty() ? "-" : n.why)};
  }
  return std::nullopt;
}

}  // namespace

std::vector<SlurmPlanned> plan_slurm_steps(const std::vector<SlurmCandidate>& nodes, const SlurmNodeStates& states) {
  std::vector<SlurmPlanned> out;
  for (const SlurmCandidate& n : nodes) {
    const bool bad = n.status == Status::degraded || n.status == Status::failed;
    const std::string then = bad ? fmt::format(": not drained ({})", name(n.status)) : std::string();
    if (!slurm_node_name_ok(n.slurm_name)) {
      out.push_back({SlurmStep::not_in_slurm, n, "",
                     fmt::format("'{}' is not a name scontrol takes for one node (letters, digits, '.', '-', '_'){}",
                                 excerpt(n.slurm_name), then)});
      continue;
    }
    const auto known = states.known.find(n.slurm_name);
    if (known == states.known.end()) {
      out.push_back({SlurmStep::not_in_slurm, n, "", fmt::format("Slurm knows no node {}{}", n.slurm_name, then)});
      continue;
    }
    if (auto step = step_of_known(n, known->second)) out.push_back(std::move(*step));
  }
  return out;
}

std::vector<std::string> query_argv(const std::string& scontrol, const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ",") + n;
  return {scontrol, "show", "node", "--oneliner", list};
}

std::vector<std::string> update_argv(const std::string& scontrol, const SlurmPlanned& planned) {
  std::vector<std::string> argv{scontrol, "update", "NodeName=" + planned.node.slurm_name};
  if (planned.step == SlurmStep::drain) {
    argv.push_back("State=DRAIN");
    argv.push_back("Reason=" + planned.text);
  } else {
    argv.push_back("State=RESUME");
  }
  return argv;
}

}  // namespace distbench::health
