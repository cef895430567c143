#include "benchmarks/health/phase_runner.hpp"

#include "core/communicator.hpp"
#include "core/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace distbench::health {
namespace {

Clock::time_point after(Clock::time_point t, double seconds) {
  return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
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

PhaseResult PhaseRunner::run(const std::string& name, const std::function<nlohmann::json(PhaseContext&)>& body) {
  const auto start = Clock::now();
  PhaseContext ctx{after(start, timeout_s_), ""};
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
  auto parts = gather_strings_until(connector_, mine.dump(), connector_.root_rank(), after(ctx.deadline, grace_s()));
  PhaseResult out{name, {}, 0};
  if (!connector_.is_root()) return out;
  for (auto& part : parts) {
    if (part) {
      out.ranks.emplace_back(nlohmann::json::parse(*part));
    } else {
      out.ranks.emplace_back(std::nullopt);
    }
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

nlohmann::json PhaseRunner::decide(const nlohmann::json& decision) {
  std::string text = connector_.is_root() ? decision.dump() : std::string();
  // The root decides once its own wait is over (the phase's deadline plus grace, at most): the others wait for that
  // and as long again.
  broadcast_string_until(connector_, text, connector_.root_rank(), after(phase_deadline_, 3 * grace_s()));
  return nlohmann::json::parse(text);
}

}  // namespace distbench::health
