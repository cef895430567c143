// What `distbench health --slurm-drain` asks of Slurm, decided without running anything: the drain reason, the node
// names it may pass to scontrol, Slurm's states and reasons read from `scontrol show node --oneliner`, each node's
// step (drain, resume, leave as it is) by the rule LBNL's Node Health Check applies to its own marks, and the argument
// vectors of the calls (no shell anywhere). slurm_run.hpp runs them.
#pragma once

#include "benchmarks/health/verdict.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::health {

// Every reason distbench gives begins so; a node drained with another reason was drained by someone else.
inline constexpr std::string_view kDrainReasonPrefix = "distbench health:";
inline constexpr std::size_t kDrainReasonCodePoints = 200;  // the reason's length at most (then "...")

// "distbench health: failed: <why>": one line (control characters escaped), at most kDrainReasonCodePoints code
// points. The printed drain lines quote it; --slurm-drain passes it as one argument.
std::string drain_reason(Status status, std::string_view why);

// A name scontrol reads as exactly one node: letters, digits, '.', '-', '_', at most 128 bytes, not beginning with
// '-'. Anything else (a ',' or '[' is a host list to scontrol, a space or '=' another field) is refused, never passed.
bool slurm_node_name_ok(std::string_view name);

// A node as `scontrol show node --oneliner` shows it.
struct SlurmNodeState {
  std::string state;   // "IDLE+DRAIN", "MIXED+DRAIN+NOT_RESPONDING"
  std::string reason;  // its Reason, without the " [user@time]" Slurm appends; "" when none
};

// Drained or draining: a DRAIN flag (or the DRAINED, DRAINING names sinfo uses) among the state's '+' words.
bool is_drained(std::string_view state);
// Drained with a reason distbench gave (kDrainReasonPrefix).
bool drained_by_distbench(const SlurmNodeState& s);

// What one query said: the nodes Slurm showed, by name, and the names it does not know ("Node x not found").
struct SlurmNodeStates {
  std::map<std::string, SlurmNodeState> known;
  std::vector<std::string> not_found;
};
// Parses the stdout of `scontrol show node --oneliner NAMES`: a "NodeName=... State=... Reason=..." line per node
// (the reason runs to the line's end, or to Slurm's " [user@time]" stamp), "Node x not found" per unknown name.
SlurmNodeStates parse_node_states(std::string_view text);
// A reason without the " [user@2026-11-30T06:44:37]" Slurm appends (the last such stamp, and what follows it).
std::string without_reason_stamp(std::string_view reason);

// A node of the check, as the root judged it, and its Slurm name (SLURMD_NODENAME of its first rank, else its host).
struct SlurmCandidate {
  std::string host;
  std::string slurm_name;
  Status status = Status::healthy;
  std::string why;  // the verdict's reason
};

enum class SlurmStep {
  drain,         // a degraded or failed node: State=DRAIN with drain_reason
  resume,        // a healthy node distbench drained before: State=RESUME
  leave,         // drained by someone else (or by distbench, and not healthy now): left as it is, and said
  not_in_slurm,  // a name Slurm does not know, or one refused (slurm_node_name_ok)
};
std::string_view name(SlurmStep step);  // "drain", ..., as the records' metric names it ("slurm.drain")

struct SlurmPlanned {
  SlurmStep step;
  SlurmCandidate node;
  std::string state;  // Slurm's state before ("" when it showed none)
  std::string text;   // drain: the reason given; resume: why; leave: whose drain, with its reason; not_in_slurm: why
};

// The names to ask Slurm about: each distinct name of `nodes` that slurm_node_name_ok allows, in order.
std::vector<std::string> names_to_query(const std::vector<SlurmCandidate>& nodes);
// Each node's step, in the nodes' order (a node that needs none is left out): degraded and failed nodes are drained,
// unless drained by someone else; healthy nodes drained by distbench are resumed, those drained by someone else left
// and said; unknown nodes are never drained nor resumed (one distbench drained is said to stay drained).
std::vector<SlurmPlanned> plan_slurm_steps(const std::vector<SlurmCandidate>& nodes, const SlurmNodeStates& states);

// {scontrol, "show", "node", "--oneliner", "a,b,c"}: one query for every name.
std::vector<std::string> query_argv(const std::string& scontrol, const std::vector<std::string>& names);
// {scontrol, "update", "NodeName=x", "State=DRAIN", "Reason=..."} or {..., "State=RESUME"}: each value one argument.
std::vector<std::string> update_argv(const std::string& scontrol, const SlurmPlanned& planned);

}  // namespace distbench::health
