// One run of `distbench train`, step by step: the communicators, the one-rank baseline (--scaling), then per
// overlap mode the timed steps (with --check's bucket check at the warm-up steps), the parameter checks, compute and
// communication alone, the gathering and the record; at the end the trace.
#pragma once

#include "benchmarks/train/bucket_check.hpp"
#include "benchmarks/train/data_parallel.hpp"
#include "benchmarks/train/mlp.hpp"
#include "benchmarks/train/plan.hpp"
#include "benchmarks/train/train_record.hpp"
#include "core/benchmark.hpp"
#include "core/report/per_rank_file.hpp"
#include "numerics/host_math.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace distbench::train {

class TrainRun {
 public:
  // `per_rank_file`: the side file of every rank's figures, or null (root rank only).
  TrainRun(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress, const TrainPlan& plan,
           PerRankFile* per_rank_file = nullptr);

  BenchmarkOutcome run();

 private:
  // What one mode's steps measured on this rank (seconds per timed step).
  struct Samples {
    std::vector<double> step, update, wait, compute, comm;
    double loss_first = 0, loss_last = 0;
    std::int64_t bucket_wrong = 0;
    std::string bucket_mismatch;  // the first mismatch line of the bucket check
  };

  void make_communicators();
  void load(Mlp& model, int step);
  double one_rank_throughput();  // --scaling: the first rank alone, samples per second (the root only)
  void run_mode(std::size_t mode, BenchmarkOutcome& outcome);
  void timed_steps(std::size_t mode, Mlp& model, DataParallel& dp, std::optional<BucketCheck>& bucket_check,
                   Samples& s);
  // --check after the steps: the parameters against one rank on the global batches, the replicas bit for bit, the
  // buckets' findings; warnings on the root; the wrong count (every rank).
  std::int64_t check_parameters(bool overlap, Mlp& model, DataParallel& dp, const Samples& s, double& max_diff,
                                BenchmarkOutcome& outcome);
  void compute_and_comm_alone(const std::string& label, Mlp& model, DataParallel& dp, Samples& s);
  // Every rank's samples on the root, the losses averaged over ranks.
  void gather(const std::string& label, Samples& s, ModeResult& result);
  void write_trace();

  World& world_;
  Connector& connector_;
  Watchdog& watchdog_;
  Reporter* reporter_;
  PerRankFile* per_rank_file_;
  const ProgressFn& progress_;
  const TrainPlan& plan_;
  const bool root_;
  const Seconds timeout_;
  Communicator* comm_ = nullptr;
  Communicator* tp_comm_ = nullptr;  // --tp-size G: the model-parallel group
  Communicator* dp_comm_ = nullptr;  // the data-parallel group (ranks holding the same part of the model)
  std::size_t replica_ = 0;          // this rank's replica (data-parallel index)
  std::size_t local_ = 0;            // samples per replica per step
  std::vector<std::string> hosts_;
  TeacherData data_;
  std::unique_ptr<numerics::HostMath> host_math_;
  DenseMath* math_ = nullptr;
  std::vector<float> x_;
  std::vector<int> labels_;
  std::vector<float> reference_;  // --check: one rank's parameters after the global batches
  std::string trace_;
  std::chrono::steady_clock::time_point origin_;
  double one_rank_throughput_ = kNotMeasured;
};

}  // namespace distbench::train
