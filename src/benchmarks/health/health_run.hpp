// One run of `distbench health`, step by step: the communicators, then each bounded phase in order (run on every
// rank, judged on the root, the root's decision whether to go on shared), then the verdict every rank leaves with.
#pragma once

#include "benchmarks/health/evaluate.hpp"
#include "benchmarks/health/findings.hpp"
#include "benchmarks/health/phase_runner.hpp"
#include "benchmarks/health/plan.hpp"
#include "benchmarks/health/schedule.hpp"
#include "core/benchmark.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::health {

class HealthRun {
 public:
  HealthRun(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress, const HealthPlan& plan);

  // `startup`: every rank's start-up on the root (empty elsewhere, or where it was not measured), judged first.
  BenchmarkOutcome run(const std::vector<StartupRank>& startup);

 private:
  using Body = std::function<nlohmann::json(PhaseContext&)>;
  using Judge = std::function<std::vector<Check>(const PhaseResult&, nlohmann::json&)>;

  // One phase: run on every rank, judged on the root, the root's decision (go on or not) returned on every rank.
  // `timeout_s`: the phase's bound when it is not -T (the link phases: -T per kLinkRoundsPerTimeout rounds).
  nlohmann::json phase(const std::string& name, const Body& body, const Judge& judge, double timeout_s = 0);
  // The root's judgement of a phase: its checks go to the findings; the decision is returned.
  nlohmann::json judge_on_root(const std::string& name, const PhaseResult& result, const Judge& judge);
  // The phase's own time, with why it went wrong when it did (`stuck`: no further phase can run safely).
  Check phase_time(const std::string& name, const PhaseResult& result, bool arrived, bool stuck) const;
  // The root was stopped or starved past the others' wait for its decision: they end without a verdict, and so
  // does its own finding (unknown), so that the exit code and the Prometheus file agree. Returns the decision.
  nlohmann::json root_overdue(const std::string& name, double overdue_s, std::vector<Check>& checks, Check& time);

  nlohmann::json gpu_phase();  // NVML's state of each node's GPUs, XIDs, copies between GPUs
  nlohmann::json rank_phase();
  nlohmann::json clock_phase();
  nlohmann::json drift_phase();  // each node's software and settings against the other nodes' (drift.hpp)
  nlohmann::json node_phase();
  nlohmann::json confirm_phase();  // what the screenings flagged, measured again with the others idle
  nlohmann::json confirm_body(PhaseContext& ctx);
  nlohmann::json job_phase();
  nlohmann::json links_phase();
  nlohmann::json isolation_phase();
  nlohmann::json stragglers_phase();
  nlohmann::json soak_phase();  // verified allreduce calls for --soak-seconds (soak.hpp)
  // Every phase, in order, with its name in levels.hpp's table.
  struct NamedStep {
    std::string_view name;
    nlohmann::json (HealthRun::*step)();
  };
  static const std::vector<NamedStep>& steps();
  // The verdict: concluded on the root, shared with every rank; each rank's exit code.
  BenchmarkOutcome finish();
  // --slurm-drain, on the root after the verdict: scontrol drains and resumes (slurm_run.hpp); the warnings.
  std::vector<Warning> drain_in_slurm();

  World& world_;
  Connector& connector_;
  Watchdog& watchdog_;
  const ProgressFn& progress_;
  const HealthPlan& plan_;
  const bool root_;
  Communicator* world_comm_ = nullptr;
  Communicator* node_comm_ = nullptr;
  Topology topo_;
  std::vector<std::string> slurm_names_;  // root, --slurm-drain: each node's SLURMD_NODENAME ("" where unset)
  PhaseRunner phases_;
  Findings findings_;
  int done_ = 0;             // phases begun
  std::size_t planned_ = 0;  // phases the level runs
  std::string last_phase_;   // the phase begun last
  nlohmann::json decision_;  // the root's decision after the last phase, on every rank
  nlohmann::json screened_;  // the last decision that named suspects to confirm (the rank or the node phase's)
  // What one phase leaves for a later one.
  std::vector<double> steady_offset_ns_;
  std::vector<nlohmann::json> gpu_states_;  // root: each node's NVML readings from the gpu phase (null: none)
  Screening copy_screen_, node_screen_;
  LinkJudgement links_;
  IsolationPlan isolation_;
};

}  // namespace distbench::health
