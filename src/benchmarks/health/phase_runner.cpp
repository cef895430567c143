#include "benchmarks/health/phase_runner.hpp"

#include "benchmarks/health/verdict.hpp"
#include "core/comm/communicator.hpp"
#include "core/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace distbench::health {
namespace {

Clock::time_point after(Clock::time_point t, double seconds) {
  return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

double PhaseContext::seconds_left() const { return std::chrono::duration<double>(deadline - Clock::now()).count(); }

void wait_within(Work& work, const PhaseContext& ctx) { work.wait(Seconds(std::max(0.0, ctx.seconds_left()))); }

std::vector<int> PhaseResult::missing() const {
  std::vector<int> out;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (!ranks[r]) out.push_back(static_cast<int>(r));
  }
  return out;
}

std::vector<std::pair<int, std::string>> PhaseResult::failures() const {
  std::vector<std::pair<int, std::string>> out;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r] && ranks[r]->contains("error")) {
      out.emplace_back(static_cast<int>(r), (*ranks[r])["error"].get<std::string>());
    }
  }
  return out;
}

PhaseRunner::PhaseRunner(Connector& connector, double timeout_s) : connector_(connector), timeout_s_(timeout_s) {}

double PhaseRunner::grace_s() const { return 1.0 + 0.05 * timeout_s_; }

PhaseResult PhaseRunner::run(const std::string& name, const std::function<nlohmann::json(PhaseContext&)>& body,
                             double timeout_s) {
  const auto start = Clock::now();
  PhaseContext ctx{after(start, timeout_s > 0 ? timeout_s : timeout_s_), ""};
  phase_deadline_ = ctx.deadline;
  nlohmann::json mine;
  try {
    mine = body(ctx);
  } catch (const Error& e) {
    // The finding of this phase on this rank: reported, judged by the root; the run goes on to say so.
    mine = nlohmann::json::object();
    mine["error"] = ctx.step.empty() ? std::string(e.what()) : fmt::format("{}: {}", ctx.step, e.what());
    mine["timeout"] = e.code() == ExitCode::timeout;
  }
  const auto body_end = Clock::now();
  PhaseResult out{name, {}, 0};
  auto gather_deadline = after(ctx.deadline, grace_s());
  if (connector_.is_root()) {
    if (body_end > gather_deadline) {
      out.root_behind_s = seconds_between(ctx.deadline, body_end);
    } else if (decided_at_ && seconds_between(*decided_at_, start) > grace_s()) {
      out.root_behind_s = seconds_between(*decided_at_, start);  // nothing runs between a decision and a phase
    }
    // What the others sent while the root was away is here or on its way, and counts.
    if (out.root_late()) gather_deadline = std::max(gather_deadline, after(body_end, grace_s()));
  }
  auto parts = gather_strings_until(connector_, mine.dump(), connector_.root_rank(), gather_deadline);
  if (!connector_.is_root()) return out;
  for (auto& part : parts) {
    if (part) {
      out.ranks.emplace_back(nlohmann::json::parse(*part));
    } else {
      out.ranks.emplace_back(std::nullopt);
    }
  }
  out.seconds = seconds_between(start, Clock::now());
  return out;
}

Clock::time_point PhaseRunner::decision_deadline() const {
  // The root decides once its own wait is over (the phase's deadline plus grace, at most): the others wait for that
  // and as long again.
  return after(phase_deadline_, 3 * grace_s());
}

double PhaseRunner::decision_overdue_s() const {
  return std::max(0.0, seconds_between(decision_deadline(), Clock::now()));
}

nlohmann::json PhaseRunner::decide(const nlohmann::json& decision) {
  std::string text = connector_.is_root() ? decision.dump() : std::string();
  try {
    broadcast_string_until(connector_, text, connector_.root_rank(), decision_deadline());
  } catch (const Error& e) {
    if (e.code() != ExitCode::timeout || connector_.is_root()) throw;
    // The root is stopped, starved or gone: it alone judges, so this rank ends without a verdict (unknown), later
    // than the root would if it comes back (its verdict is the job's then).
    return {{"go", false},
            {"exit", static_cast<int>(Status::unknown)},
            {"abandon", fmt::format("no decision from the root, rank {}, within {:.3g} s of the phase's end: the root "
                                    "is stopped, starved or gone, and this rank cannot judge alone",
                                    connector_.root_rank(), 3 * grace_s())}};
  }
  decided_at_ = Clock::now();
  return nlohmann::json::parse(text);
}

}  // namespace distbench::health
