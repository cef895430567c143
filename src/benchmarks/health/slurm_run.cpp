#include "benchmarks/health/slurm_run.hpp"

#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace distbench::health {
namespace {

// The calls to scontrol, each bounded, all within the budget.
class ScontrolCalls {
 public:
  explicit ScontrolCalls(const SlurmDrainSettings& s) : s_(s) {}

  // What the call did; std::nullopt when it was not begun (less than kSlurmCallMinSeconds of the budget left).
  std::optional<ProgramOutcome> call(const std::vector<std::string>& argv, std::size_t cap_bytes) {
    const double left = s_.budget_s - spent_;
    if (left < kSlurmCallMinSeconds) return std::nullopt;
    ProgramOutcome o = s_.run(argv, std::min(kScontrolCallSeconds, left), cap_bytes);
    spent_ += o.seconds;
    ++calls_;
    return o;
  }
  double spent() const { return spent_; }
  int calls() const { return calls_; }
  std::string not_begun() const {
    return fmt::format("not begun: --slurm-drain's {:g} s (-T) were spent", s_.budget_s);
  }

 private:
  const SlurmDrainSettings& s_;
  double spent_ = 0;
  int calls_ = 0;
};

// Why a call that ran did not succeed, in one line: "scontrol: slurm_update error: Invalid node name specified".
std::string scontrol_failure_text(const ProgramOutcome& o) {
  if (!o.started) return o.error;
  if (o.timed_out) return fmt::format("scontrol did not answer within {:.3g} s: killed", o.seconds);
  const std::string said = last_output_line(o);
  return fmt::format("scontrol: {} (exit {})", said.empty() ? "(said nothing)" : excerpt(said, 160), o.status);
}

// Why the query cannot be used, or "": it ran and accounted for every name (shown, or "not found").
std::string query_problem(const std::optional<ProgramOutcome>& o, const std::vector<std::string>& names,
                          const SlurmNodeStates& states, const std::string& not_begun) {
  if (!o) return not_begun;
  if (!o->started || o->timed_out) return scontrol_failure_text(*o);
  if (o->cut) return fmt::format("scontrol show node: its output was longer than {} bytes", o->out.size());
  for (const std::string& n : names) {
    if (states.known.count(n) == 0 &&
        std::find(states.not_found.begin(), states.not_found.end(), n) == states.not_found.end()) {
      return fmt::format("scontrol show node did not show node {}: {}", n, scontrol_failure_text(*o));
    }
  }
  return {};
}

Check slurm_record(const std::string& subject, const std::string& host, const std::string& metric, double value,
                   std::string why) {
  Check c = make_check("slurm", subject, host, metric, value, "");
  c.why = std::move(why);
  return c;
}

Check step_record(const SlurmPlanned& p, double value, std::string why) {
  Check c = slurm_record(p.node.host, p.node.host, fmt::format("slurm.{}", name(p.step)), value, std::move(why));
  c.key = p.node.slurm_name;
  c.limit = p.state;
  return c;
}

// What the steps came to, counted by their records' metric and value.
std::string slurm_summary_text(const std::vector<Check>& records, int calls) {
  std::size_t drained = 0, resumed = 0, left = 0, unknown = 0, failed = 0;
  bool no_query = false;
  for (const Check& c : records) {
    if (c.metric == "slurm.query") no_query = true;
    const bool done = c.value == 0;
    if (c.metric == "slurm.drain") (done ? drained : failed) += 1;
    if (c.metric == "slurm.resume") (done ? resumed : failed) += 1;
    if (c.metric == "slurm.left_drained") ++left;
    if (c.metric == "slurm.not_in_slurm") ++unknown;
  }
  std::string parts;
  for (const auto& [n, what] :
       {std::pair{drained, "drained"}, std::pair{resumed, "resumed"}, std::pair{left, "left drained"},
        std::pair{unknown, "not in Slurm"}, std::pair{failed, "not done"}}) {
    if (n > 0) parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", plural(n, "node", "nodes"), what);
  }
  if (parts.empty()) parts = no_query ? "no node drained or resumed" : "nothing to drain or resume";
  return fmt::format("{}; {}", parts, plural(static_cast<std::size_t>(calls), "scontrol call", "scontrol calls"));
}

// The run's record (its time within the budget, what the steps came to) and its one warning line, if any.
void conclude_slurm(SlurmDrainOutcome& out, const ScontrolCalls& calls, const SlurmDrainSettings& s,
                    const std::vector<std::string>& problems) {
  Check total =
      slurm_record("slurm", "", "slurm.seconds", calls.spent(), slurm_summary_text(out.records, calls.calls()));
  total.unit = "s";
  total.limit = fmt::format("<= {:g} s (-T), each call <= {:g} s", s.budget_s, kScontrolCallSeconds);
  out.records.push_back(std::move(total));
  if (problems.empty()) return;
  std::string more = problems.size() > 1 ? fmt::format(" (and {} more)", problems.size() - 1) : std::string();
  out.warnings.push_back({"slurm_drain", fmt::format("--slurm-drain: {}{}; the verdict and its exit code stand, the "
                                                     "reports' slurm records say what was done",
                                                     problems.front(), more)});
}

// One drain or resume: its record, and what went wrong for the warning.
void run_slurm_step(const SlurmPlanned& p, const SlurmDrainSettings& s, ScontrolCalls& calls, SlurmDrainOutcome& out,
                    std::vector<std::string>& problems) {
  const auto o = calls.call(update_argv(s.scontrol, p), kScontrolOutputBytes);
  if (o && o->ok()) {
    out.records.push_back(step_record(p, 0, p.text));
    return;
  }
  const std::string why = o ? scontrol_failure_text(*o) : calls.not_begun();
  const double status = o && o->started && !o->timed_out ? o->status : kNotMeasured;
  out.records.push_back(step_record(p, status, why));
  problems.push_back(fmt::format("could not {} {}: {}", name(p.step), p.node.host, why));
}

}  // namespace

SlurmDrainOutcome drain_in_slurm(const std::vector<SlurmCandidate>& nodes, const SlurmDrainSettings& settings) {
  SlurmDrainOutcome out;
  ScontrolCalls calls(settings);
  std::vector<std::string> problems;
  const auto query_failed = [&](const std::string& why) {
    out.records.push_back(slurm_record("slurm", "", "slurm.query", kNotMeasured, why));
    problems.push_back(fmt::format("could not read Slurm's node states: {}: no node was drained or resumed", why));
    conclude_slurm(out, calls, settings, problems);
    return out;
  };
  if (settings.scontrol.empty()) {
    return query_failed(fmt::format("scontrol is not on PATH ({})", excerpt(settings.path, 120)));
  }
  const std::vector<std::string> names = names_to_query(nodes);
  SlurmNodeStates states;
  if (!names.empty()) {
    const auto o =
        calls.call(query_argv(settings.scontrol, names), kQueryBaseBytes + kQueryBytesPerNode * names.size());
    if (o) states = parse_node_states(o->out);
    if (const std::string why = query_problem(o, names, states, calls.not_begun()); !why.empty()) {
      return query_failed(why);
    }
  }
  for (const SlurmPlanned& p : plan_slurm_steps(nodes, states)) {
    if (p.step == SlurmStep::drain || p.step == SlurmStep::resume) {
      run_slurm_step(p, settings, calls, out, problems);
      continue;
    }
    out.records.push_back(step_record(p, kNotMeasured, p.text));
    const bool bad = p.node.status == Status::degraded || p.node.status == Status::failed;
    if (p.step == SlurmStep::not_in_slurm && bad) {
      problems.push_back(fmt::format("{}: {}", p.node.host, p.text));
    }
  }
  conclude_slurm(out, calls, settings, problems);
  return out;
}

}  // namespace distbench::health
