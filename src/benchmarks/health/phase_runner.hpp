// The phases of a health check, each bounded: every rank runs the phase's body with a deadline and sends what it
// found to the root, which waits until the deadline (plus a grace period) and so learns which ranks did not arrive;
// then the root tells every rank whether to go on. No call here waits without a deadline.
#pragma once

#include "core/comm/connector.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace distbench {
class Work;
}

namespace distbench::health {

using Clock = std::chrono::steady_clock;

// What a phase's body may read and say: its deadline, and the step it is in (named in its result when a wait times
// out there).
struct PhaseContext {
  Clock::time_point deadline;
  std::string step;
  double seconds_left() const;
};

// Waits for `work` until the context's deadline; throws Error(timeout) (naming the context's step) past it.
void wait_within(Work& work, const PhaseContext& ctx);

// What the root learns of one phase.
struct PhaseResult {
  std::string name;
  std::vector<std::optional<nlohmann::json>> ranks;  // root only: each rank's result; nullopt: did not arrive
  double seconds = 0;                                // root only: from the phase's start to the last arrival
  // Root only: how late the root itself was in this phase, 0 when it kept time. It is late when stopped or starved:
  // its body ended after the wait for the others was over, or it began the phase well after its last decision let
  // the others begin. The ranks it then did not hear from cannot be blamed.
  double root_behind_s = 0;
  bool root_late() const { return root_behind_s > 0; }
  std::vector<int> missing() const;  // ranks that did not arrive
  // Ranks whose body failed (a wait that timed out, an error), with what they said.
  std::vector<std::pair<int, std::string>> failures() const;
};

class PhaseRunner {
 public:
  PhaseRunner(Connector& connector, double timeout_s);

  // Runs `body` on every rank with the phase's deadline (`timeout_s` from now; 0: the runner's). A body that throws
  // distbench::Error reports the error (and its step) as its result instead. The root gets every rank's result; the
  // others get an empty PhaseResult.
  PhaseResult run(const std::string& name, const std::function<nlohmann::json(PhaseContext&)>& body,
                  double timeout_s = 0);
  // The root's decision after a phase, on every rank (the root passes it, the others receive it). A rank that hears
  // nothing from the root in time gets {go: false, abandon: why, exit: unknown (3)}.
  nlohmann::json decide(const nlohmann::json& decision);

  // Root only: the others have stopped waiting for the decision on the phase just run (the root was stopped or
  // starved since); how long ago, 0 when they still wait.
  double decision_overdue_s() const;

  double timeout_s() const { return timeout_s_; }
  // Waits past a phase's deadline: for results to reach the root, and again for the decision to come back.
  double grace_s() const;

 private:
  Connector& connector_;
  double timeout_s_;
  Clock::time_point phase_deadline_{};
  std::optional<Clock::time_point> decided_at_;  // when the last decision was passed on
  Clock::time_point decision_deadline() const;   // when the others stop waiting for it
};

}  // namespace distbench::health
