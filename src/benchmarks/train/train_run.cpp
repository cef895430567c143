#include "benchmarks/train/train_run.hpp"

#include "benchmarks/train/reference_check.hpp"
#include "benchmarks/train/replica_check.hpp"
#include "benchmarks/train/trace.hpp"
#include "benchmarks/train/train_benchmark.hpp"
#include "core/comm/groups.hpp"
#include "core/comm/phase_over_ranks.hpp"
#include "core/comm/tree_reduce.hpp"
#include "core/error.hpp"
#include "core/measure/stats.hpp"
#include "core/report/atomic_file.hpp"
#include "core/sys/deadline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>

namespace distbench::train {
namespace {

std::size_t bucket_bytes(const TrainPlan& plan) { return static_cast<std::size_t>(plan.bucket_mb * 1024 * 1024); }

const char* on_off(bool overlap) { return overlap ? "on" : "off"; }

// The data-parallel groups beside tensor-parallel groups of `tp` consecutive ranks: the ranks of one tp rank (all
// ranks when tp is 1). The data-parallel communicator and the bucket check's replicas are both made from it.
Partition data_parallel_groups(int world_size, int tp) { return strided_partition(world_size, tp); }

}  // namespace

TrainRun::TrainRun(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress,
                   const TrainPlan& plan, PerRankFile* per_rank_file)
    : world_(world),
      connector_(world.connector()),
      watchdog_(watchdog),
      reporter_(reporter),
      per_rank_file_(per_rank_file),
      progress_(progress),
      plan_(plan),
      root_(connector_.is_root()),
      timeout_(plan.timeout_s),
      data_(plan.shape, plan.seed + 1) {
  make_communicators();
  const std::size_t replicas = static_cast<std::size_t>(connector_.size()) / static_cast<std::size_t>(plan_.tp_size);
  replica_ = static_cast<std::size_t>(connector_.rank() / plan_.tp_size);
  local_ = plan_.batch / replicas;
  {
    const ArmedStep step = watchdog_.arm(StepKind::setup, "train: gathering the ranks' hosts");
    hosts_ = allgather_string(connector_, connector_.hostname(), step);
  }
  if (root_ && per_rank_file_ != nullptr) per_rank_file_->begin("train", hosts_);
  if (comm_->local_parts() != 1) {
    throw usage_error("train runs one model replica per rank: run with -g 1 (one GPU per process)");
  }
  math_ = &numerics::device_math(world_, host_math_);  // a GPU's own, else the CPU's
  x_.resize(local_ * plan_.shape.inputs);
  labels_.resize(local_);
  if (plan_.check) {
    reference_ = one_rank_reference(plan_, plan_.warmup_steps + plan_.steps, world_.device(), *math_);
  }
  trace_ = trace_names(connector_.rank(), connector_.hostname(), plan_.overlaps);
}

// With --tp-size G: the model-parallel groups of G consecutive ranks, and across them the data-parallel groups of
// the ranks that hold the same part of the model (strided); each replica (a group) reads its share of a batch.
void TrainRun::make_communicators() {
  {
    const ArmedStep step = watchdog_.arm(StepKind::setup, "train: creating the communicator");
    comm_ = &world_.communicator(world_partition(connector_.size()), step);
  }
  dp_comm_ = comm_;
  if (plan_.tp_size > 1) {
    const ArmedStep step =
        watchdog_.arm(StepKind::setup, "train: creating the tensor- and data-parallel communicators");
    tp_comm_ = &world_.communicator(consecutive_partition(connector_.size(), plan_.tp_size), step);
    dp_comm_ = &world_.communicator(data_parallel_groups(connector_.size(), plan_.tp_size), step);
  }
}

void TrainRun::load(Mlp& model, int step) {
  data_.batch(static_cast<std::uint64_t>(step) * plan_.batch + static_cast<std::uint64_t>(replica_) * local_, local_,
              x_.data(), labels_.data());
  model.load_batch(x_.data(), labels_.data(), local_);
}

BenchmarkOutcome TrainRun::run() {
  {
    const ArmedStep step = watchdog_.arm(StepKind::barrier, "train: barrier before the first step");
    connector_.barrier(step);  // the trace's origin: ranks leave the barrier together
  }
  origin_ = std::chrono::steady_clock::now();
  if (plan_.scaling) one_rank_throughput_ = one_rank_throughput();
  BenchmarkOutcome outcome;
  for (std::size_t i = 0; i < plan_.overlaps.size(); ++i) run_mode(i, outcome);
  if (root_ && progress_) progress_(plan_.overlaps.size(), plan_.overlaps.size(), "");
  if (root_ && per_rank_file_ != nullptr) per_rank_file_->finish();
  if (!plan_.trace_path.empty()) write_trace();
  return outcome;
}

// --scaling: the first rank alone on a rank's share of each batch (the others wait), as the baseline.
double TrainRun::one_rank_throughput() {
  Communicator* alone = nullptr;
  {
    const ArmedStep step = watchdog_.arm(StepKind::setup, "train: creating the one-rank communicators");
    alone = &world_.communicator(consecutive_partition(connector_.size(), 1), step);
  }
  double throughput = kNotMeasured;
  if (root_) {
    Mlp model(plan_.shape, plan_.seed, world_.device(), *math_);
    DataParallel dp(*alone, model, {bucket_bytes(plan_), local_, plan_.optimizer, 0, plan_.wire});
    std::vector<double> steps;
    const ArmedStep step = watchdog_.arm(StepKind::train_step, "train --scaling: one rank alone");
    for (int s = 0; s < plan_.warmup_steps + plan_.steps; ++s) {
      watchdog_.arm_again();
      load(model, s);
      dp.step(true, timeout_);
      if (s >= plan_.warmup_steps) steps.push_back(dp.last_times().total);
    }
    throughput = static_cast<double>(local_) / percentile(steps, 50);
  }
  const ArmedStep step = watchdog_.arm(StepKind::barrier, "train --scaling: waiting for the one-rank run");
  connector_.barrier(step);
  return throughput;
}

void TrainRun::run_mode(std::size_t mode, BenchmarkOutcome& outcome) {
  const bool overlap = plan_.overlaps[mode];
  const std::string label = fmt::format("train, overlap {}", on_off(overlap));
  if (root_ && progress_) progress_(mode, plan_.overlaps.size(), label);
  Mlp model(plan_.shape, plan_.seed, world_.device(), *math_, {tp_comm_, timeout_});
  DataParallel dp(*dp_comm_, model, {bucket_bytes(plan_), plan_.batch, plan_.optimizer, plan_.zero_stage, plan_.wire});
  // --check: every bucket's reduced gradients at the warm-up steps (untimed), against the sums of the gradients of
  // this rank's data-parallel group (the ranks holding the same part of the model).
  std::optional<BucketCheck> bucket_check;
  if (plan_.check) {
    const Partition groups = data_parallel_groups(connector_.size(), plan_.tp_size);
    bucket_check.emplace(connector_, groups.members_of(connector_.rank()), model, dp, plan_.wire);
  }
  Samples s;
  timed_steps(mode, model, dp, bucket_check, s);
  ModeResult result;
  if (plan_.check) result.wrong = check_parameters(overlap, model, dp, s, result.max_rel_diff, outcome);
  if (result.wrong > 0) outcome.wrong += result.wrong;
  compute_and_comm_alone(label, model, dp, s);
  gather(label, s, result);
  if (!root_) return;
  result.overlap = overlap;
  result.backend = std::string(comm_->backend());
  result.parameters = static_cast<std::int64_t>(model.parameters());
  result.buckets = static_cast<std::int64_t>(dp.buckets().size());
  result.replicas_per_group = dp_comm_->size();
  result.one_rank_throughput = one_rank_throughput_;
  result.hosts = hosts_;
  const ArmedStep writing = watchdog_.arm(StepKind::report, label + ": writing the results");
  const std::vector<Record> row = {train_record(plan_, result, outcome.warnings)};
  if (per_rank_file_ != nullptr) per_rank_file_->add(row);
  if (reporter_ != nullptr) reporter_->add(row);
}

void TrainRun::timed_steps(std::size_t mode, Mlp& model, DataParallel& dp, std::optional<BucketCheck>& bucket_check,
                           Samples& s) {
  const int total_steps = plan_.warmup_steps + plan_.steps;
  const ArmedStep armed =
      watchdog_.arm(StepKind::train_step, fmt::format("train, overlap {}: steps", on_off(plan_.overlaps[mode])));
  for (int step = 0; step < total_steps; ++step) {
    watchdog_.arm_again();
    load(model, step);
    const bool observed = bucket_check && step < plan_.warmup_steps;
    dp.step(plan_.overlaps[mode], timeout_, observed ? &*bucket_check : nullptr);
    if (observed) {
      const BucketCheckResult found = bucket_check->verify(step, armed);
      s.bucket_wrong += found.wrong;
      if (s.bucket_mismatch.empty()) s.bucket_mismatch = found.first;
    }
    if (step == plan_.warmup_steps) s.loss_first = model.loss();
    if (step + 1 == total_steps) s.loss_last = model.loss();
    if (step < plan_.warmup_steps) continue;
    s.step.push_back(dp.last_times().total);
    s.update.push_back(dp.last_times().update);
    s.wait.push_back(dp.last_times().wait);  // what the step itself waited for, after its backward
    if (!plan_.trace_path.empty()) {
      const double offset = std::chrono::duration<double>(dp.last_began() - origin_).count();
      const std::string events = trace_events(dp.last_timeline(), offset, connector_.rank(), static_cast<int>(mode));
      if (!events.empty()) trace_ += ",\n" + events;
    }
  }
}

std::int64_t TrainRun::check_parameters(bool overlap, Mlp& model, DataParallel& dp, const Samples& s, double& max_diff,
                                        BenchmarkOutcome& outcome) {
  {
    const ArmedStep step = watchdog_.arm(
        StepKind::train_step, fmt::format("train, overlap {}: gathering the parameters (ZeRO-3)", on_off(overlap)));
    dp.gather_parameters(timeout_);
  }
  const ArmedStep step =
      watchdog_.arm(StepKind::check_count,
                    fmt::format("train, overlap {}: checking the parameters against one rank", on_off(overlap)));
  const std::vector<float> params = model.download_params();
  const std::vector<float> mine_in_reference = model.shard_of(reference_);  // this rank's part of the model
  const std::int64_t beyond = parameters_beyond(params, mine_in_reference, check_tolerance(plan_.wire));
  const auto diffs = allgather_value(connector_, largest_relative_difference(params, mine_in_reference), step);
  max_diff = *std::max_element(diffs.begin(), diffs.end());
  std::int64_t beyond_all = 0;
  for (auto b : allgather_value(connector_, beyond, step)) beyond_all += b;
  // Replicas bit for bit: what a tolerance against one rank misses (a small bucket left unreduced).
  const std::int64_t diverged = diverged_replicas(connector_, params, plan_.tp_size, step);
  if (root_ && beyond_all > 0) {
    outcome.warnings.push_back(
        {"train_mismatch",
         fmt::format("train --check, overlap {}: {} parameters differ from one rank trained on the global batches by "
                     "more than {:g} (largest relative difference {:.3g})",
                     on_off(overlap), beyond_all, check_tolerance(plan_.wire), max_diff)});
  }
  if (root_ && diverged > 0) {
    outcome.warnings.push_back(
        {"train_replicas_differ",
         fmt::format("train --check, overlap {}: {} of {} ranks hold parameters that differ bit for bit from the "
                     "first replica holding the same part of the model: the replicas did not apply the same reduced "
                     "gradients",
                     on_off(overlap), diverged, connector_.size())});
  }
  if (root_ && s.bucket_wrong > 0) {
    outcome.warnings.push_back(
        {"train_bucket_mismatch", fmt::format("train --check, overlap {}: {}", on_off(overlap), s.bucket_mismatch)});
  }
  return beyond_all + diverged + s.bucket_wrong;
}

// Compute alone (the same batches, no communication, parameters untouched) and communication alone.
void TrainRun::compute_and_comm_alone(const std::string& label, Mlp& model, DataParallel& dp, Samples& s) {
  const ArmedStep armed = watchdog_.arm(StepKind::train_step, label + ": compute and communication alone");
  for (int step = 0; step < plan_.steps; ++step) {
    watchdog_.arm_again();
    load(model, plan_.warmup_steps + step);
    dp.compute_only();
    s.compute.push_back(dp.last_times().total + s.update[static_cast<std::size_t>(step)]);
  }
  for (int step = 0; step < plan_.steps; ++step) {
    watchdog_.arm_again();
    connector_.barrier(armed);
    s.comm.push_back(dp.communicate_only(timeout_));
  }
}

void TrainRun::gather(const std::string& label, Samples& s, ModeResult& result) {
  const ArmedStep step = watchdog_.arm(StepKind::gather, label + ": gathering");
  const int to = connector_.root_rank();
  // Reduced along a tree, each rank's own figures gathered: no rank's steps travel whole.
  const auto deadline = deadline_after(2 * watchdog_.timeout_s());
  result.step = reduce_phase_over_ranks(connector_, "step", s.step, RankAverage::max, to, step, deadline);
  result.compute = reduce_phase_over_ranks(connector_, "compute", s.compute, RankAverage::max, to, step, deadline);
  result.comm = reduce_phase_over_ranks(connector_, "comm", s.comm, RankAverage::max, to, step, deadline);
  result.wait_slowest = reduce_elementwise(connector_, s.wait, ElementwiseOp::max, to, deadline);
  const double medians[] = {percentile(s.step, 50), percentile(s.compute, 50)};
  for (const auto& mine : gather_vector<double>(connector_, std::span<const double>(medians), to, step)) {
    result.step_median_by_rank.push_back(mine.at(0));
    result.compute_median_by_rank.push_back(mine.at(1));
  }
  const auto first = allgather_value(connector_, s.loss_first, step);
  const auto last = allgather_value(connector_, s.loss_last, step);
  const auto ranks = static_cast<double>(first.size());
  for (std::size_t r = 0; r < first.size(); ++r) {
    result.loss_first += first[r] / ranks;
    result.loss_last += last[r] / ranks;
  }
}

void TrainRun::write_trace() {
  std::vector<std::vector<char>> all;
  {
    const ArmedStep step = watchdog_.arm(StepKind::gather, "train: gathering the trace");
    all = gather_vector<char>(connector_, std::span<const char>(trace_), connector_.root_rank(), step);
  }
  if (!root_) return;
  const ArmedStep writing = watchdog_.arm(StepKind::report, "train: writing the trace");  // the root writes
  write_file_atomically(plan_.trace_path, trace_file(all), Durability::disk);
}

}  // namespace distbench::train
