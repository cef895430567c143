// One run of `distbench zero`, step by step: per stage (and stage 1's form) the formulas, --check's exact steps, the
// timed step with its memory, network and update-alone readings, the prediction from the step's own calls timed
// alone, and the gathered record; then the run's warnings.
#pragma once

#include "benchmarks/zero/plan.hpp"
#include "benchmarks/zero/step.hpp"
#include "benchmarks/zero/step_ledger.hpp"
#include "benchmarks/zero/zero_record.hpp"
#include "core/benchmark.hpp"
#include "core/comm/sampler.hpp"
#include "core/report/per_rank_file.hpp"

#include <optional>
#include <string>
#include <vector>

namespace distbench::zero {

class ZeroRun {
 public:
  // `per_rank_file`: the side file of every rank's figures, or null (root rank only).
  ZeroRun(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress, const ZeroPlan& plan,
          PerRankFile* per_rank_file = nullptr);

  BenchmarkOutcome run();

 private:
  // What one stage's timed step measured on this rank.
  struct Timed {
    Sampling sampling;
    std::vector<StepCall> calls;  // the step's collectives, as it makes them
    double held = 0, update_alone = 0, peak_growth = kNotMeasured;
    double net_sent = kNotMeasured, net_received = kNotMeasured;
    double device_arrays = kNotMeasured, device_during = kNotMeasured;
  };

  void run_stage(Stage stage, Zero1Reduce zero1, std::size_t index, std::size_t count, BenchmarkOutcome& outcome);
  StepConfig step_config(Stage stage, Zero1Reduce zero1) const;
  StageResult formulas(Stage stage, Zero1Reduce zero1) const;  // the result with what the formulas say
  // --check: exact gradients for a few steps, then every owned element against a single-rank run.
  void check_stage(StepConfig config, const std::string& stage_text, StageResult& result, BenchmarkOutcome& outcome);
  void check_sent_bytes(const StepLedger& ledger, const std::string& stage_text, StageResult& result,
                        BenchmarkOutcome& outcome);
  void check_adam(BenchmarkOutcome& outcome) const;
  Timed time_stage(StepConfig config, const std::string& label, const std::string& stage_text, StageResult& result);
  void device_memory(Timed& t, std::optional<std::uint64_t> before, std::optional<std::uint64_t> made,
                     const std::string& stage_text);
  void network_per_step(ZeroStep& step, const std::string& label, Timed& t);
  double update_alone(ZeroStep& step, const std::string& label);
  double predicted(const Timed& t);
  void gather(const std::string& label, const Timed& t, StageResult& result);
  void add_run_warnings(BenchmarkOutcome& outcome) const;

  World& world_;
  Connector& connector_;
  Watchdog& watchdog_;
  Reporter* reporter_;
  PerRankFile* per_rank_file_;
  const ProgressFn& progress_;
  const ZeroPlan& plan_;
  const bool root_;
  const Seconds timeout_;
  const SamplingRules rules_;
  Communicator* comm_ = nullptr;
  std::vector<std::string> hosts_;
  bool multi_host_ = false;
  double copy_gbps_ = 0;
  numerics::AdamConfig adam_;
  DenseMath* math_ = nullptr;                 // null: the step on host memory, updated by the CPU
  std::size_t faulting_ = 0;                  // stages whose timed steps took page faults enough to shape their time
  std::vector<std::string> memory_withheld_;  // stages whose device memory readings went below zero
};

}  // namespace distbench::zero
