// The seeds' data parallelism, measurable: every rank trains a replica of the model on its shard of each global
// batch; gradients are reduced bucket by bucket as the backward makes them (overlap on: a bucket's reduction starts
// once its last gradient is made, and the backward keeps the collectives progressing between layers; off: every
// bucket after the backward), then the optimizer steps. A bucket's tensors are consecutive in the flat buffers
// (buckets.hpp packs them last layer first), so each bucket is reduced in place where it lies, no copies.
//
// With ZeRO (`zero_stage` 1-3) each bucket is split over the N ranks into equal blocks (rank r owns the r-th; the
// last n mod N elements, fewer than N, are a tail every rank reduces and updates alike), and each rank updates only
// what it owns:
//   stage 0  allreduce per bucket; every rank updates everything (DDP)
//   stage 1  allreduce per bucket; update of the owned block; allgather of the parameters per bucket
//   stage 2  reduce-scatter per bucket (the owned block's gradient sums only); update; allgather of the parameters
//   stage 3  as stage 2 without the allgather after the update: every bucket's parameters are gathered before the
//            forward (a layer waits for its own buckets) and again before the backward, as ZeRO-3 re-gathers the
//            weights it freed.
// Gradients travel as float32, or as bfloat16 (`wire`): each bucket is converted before its reduction and back after
// it, as PyTorch DDP's bf16 compression hook does, halving the bytes; the model computes and keeps its weights in fp32.
//
// What is partitioned here is the work and the traffic: the replica keeps its whole buffers (the optimizer state is
// touched only where owned), so memory is not saved; `distbench zero` measures the memory of each stage.
#pragma once

#include "benchmarks/train/buckets.hpp"
#include "benchmarks/train/mlp.hpp"
#include "core/comm/communicator.hpp"
#include "core/device/buffer.hpp"
#include "core/device/dense_math.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace distbench::train {

// The optimizer every replica steps with: SGD with momentum (PyTorch's form: v = mu v + g, p -= lr v), or the fused
// Adam update of the ZeRO step.
struct Optimizer {
  enum class Kind { sgd, adam } kind = Kind::sgd;
  float lr = 0.01f;
  float momentum = 0.9f;     // SGD
  AdamHyperparameters adam;  // Adam (its lr is `lr`)
};
// The optimizer's state for n parameters in the model's memory (SGD: a velocity; Adam: m and v), zeroed.
class OptimizerState {
 public:
  OptimizerState(const Optimizer& optimizer, Mlp& model);
  // Step `step` (1-based) of the optimizer over every parameter, queued on the model's math.
  void step(int step);
  // The same over `n` parameters from element `param_at`, with their gradients from element `grad_at`.
  void step(int step, std::size_t param_at, std::size_t grad_at, std::size_t n);

 private:
  Optimizer optimizer_;
  Mlp& model_;
  std::unique_ptr<Buffer> a_, b_;
};

struct StepTimes {  // one step on this rank, seconds
  double forward = 0, backward = 0, wait = 0, update = 0, gather = 0, total = 0;
};

// One span of a step's timeline (seconds from the step's start): lane 0 is compute, lane 1 communication.
struct TimelineSpan {
  std::string name;  // "fc3 forward", "fc3 backward", "bucket 2 allreduce (4 tensors, 1.0 MiB)", "update"
  int lane = 0;
  double start = 0, end = 0;
};

struct DataParallelConfig {
  std::size_t bucket_bytes = std::size_t{25} << 20;  // as buckets.hpp (0: one reduction per tensor)
  std::size_t global_batch = 0;                      // the batch over all ranks
  Optimizer optimizer;
  int zero_stage = 0;           // 0-3 (above)
  DType wire = DType::float32;  // the gradients' type in the collectives: float32 or bfloat16
};

// Where a step leaves the sums the update reads: `count` gradients of the model from element `element` lie, reduced,
// at element `at` of the gradient buffer (the same place, or the start of the bucket where an in-place
// reduce-scatter leaves the owned block).
struct ReducedPart {
  std::size_t element = 0, at = 0, count = 0;
};

// Sees each bucket's gradients as this rank made them, just before their reduction starts (train --check), and
// chooses the communicator the observed step's reductions go through (by default the step's own).
class BucketObserver {
 public:
  virtual ~BucketObserver() = default;
  virtual void before_reduce(std::size_t bucket) = 0;
  virtual Communicator& reductions(Communicator& real) { return real; }
};

class DataParallel {
 public:
  DataParallel(Communicator& comm, Mlp& model, const DataParallelConfig& config);

  // One step on the batch the model has loaded (this rank's share); every wait bounded by `timeout`. Returns with
  // the step complete on the device. An `observer` is shown every bucket before its reduction starts (its time
  // counts in the step: observe untimed steps only).
  void step(bool overlap, Seconds timeout, BucketObserver* observer = nullptr);
  // The step's forward and backward with no communication (what compute alone takes on this rank's share); the
  // parameters are left as they were (no update: the replicas must stay equal).
  void compute_only();

  // The collectives of a step with no compute around them, each group started at once and waited for: the
  // communication a step needs, alone. Seconds. (It reduces the gradients again; the next backward overwrites them.)
  double communicate_only(Seconds timeout);

  // Every rank's parameters made whole: with ZeRO-3 each rank's update left only its own blocks current (the next
  // forward gathers them), so this gathers them, as for a checkpoint; nothing to do at other stages.
  void gather_parameters(Seconds timeout);

  const std::vector<Bucket>& buckets() const { return buckets_; }
  std::size_t first_element(std::size_t b) const { return first_of_[b]; }  // bucket b's first gradient
  // The sums of bucket b the update reads on this rank after a step: the whole bucket without ZeRO; with it, the
  // owned block and the tail (parts of no elements left out).
  std::vector<ReducedPart> reduced_parts(std::size_t b) const;
  int zero_stage() const { return stage_; }
  std::size_t replicas() const { return ranks_; }  // ranks of the data-parallel group the step reduces over
  const StepTimes& last_times() const { return times_; }
  // The last step's timeline (layers, buckets, update), and when it began.
  std::vector<TimelineSpan> last_timeline() const;
  std::chrono::steady_clock::time_point last_began() const { return began_; }

 private:
  // The collectives in flight of one bucket (its reduction, or its parameters' gather) and when they ran.
  struct Flight {
    std::vector<std::unique_ptr<Work>> work;
    double start = 0, end = 0;
    bool done() const;
  };

  // Marks of the math's queue at the ends of a step's parts.
  struct StepMarks {
    std::size_t forward_end = 0, backward_end = 0, waited = 0, updated = 0, gathered = 0;
  };

  void begin();
  // step()'s parts, in order: the flights and marks reset, the forward (returns its end's mark; stage 3 gathers
  // around it), the backward (starts each bucket's reduction as it fills, with `overlap`), every reduction waited
  // for, and (after the clock stopped) the marks turned into the step's times.
  void start_step(BucketObserver* observer);
  std::size_t run_forward(Seconds timeout);
  std::size_t run_backward(bool overlap);
  void reduce_buckets(bool overlap, Seconds timeout);
  void record_times(const StepMarks& marks);
  void start_reduce(std::size_t b);
  void start_gather(std::size_t b, Flight& into);
  void wait(Flight& f, Seconds timeout);
  void finish_reduce(std::size_t b);
  std::size_t reduced_block_at(std::size_t b) const;
  void update();
  void progress();
  double since_began() const;
  BufferRef grads_at(std::size_t element) { return {&model_.grad_buffer(), element * sizeof(float)}; }
  BufferRef params_at(std::size_t element) { return {&model_.param_buffer(), element * sizeof(float)}; }
  // Where the collectives reduce gradient `element`: the gradients themselves, or their bfloat16 copy.
  BufferRef wire_at(std::size_t element) const;

  Communicator& comm_;
  Communicator* reduce_comm_ = &comm_;  // where the reductions go: comm_, or an observed step's observer's choice
  Mlp& model_;
  std::size_t global_batch_;
  OptimizerState optimizer_;
  int stage_;
  DType wire_;
  std::unique_ptr<Buffer> wire_buffer_;  // bfloat16 gradients (wire_ bfloat16)
  BucketObserver* observer_ = nullptr;   // during an observed step only
  std::size_t ranks_, me_;
  int steps_ = 0;
  std::vector<Bucket> buckets_;
  std::vector<std::size_t> bucket_of_;                // tensor -> bucket
  std::vector<std::size_t> first_of_;                 // bucket -> its first element in the flat buffers
  std::vector<std::size_t> block_of_;                 // bucket -> elements each rank owns (ZeRO); the rest is the tail
  std::vector<std::size_t> pending_;                  // bucket -> gradients still to come this step
  std::vector<Flight> reduce_, gather_, pre_gather_;  // per bucket; pre_gather_: stage 3 before the forward
  std::chrono::steady_clock::time_point began_;
  StepTimes times_;
  // Marks of the math's queue (DenseMath::mark), turned into seconds at the step's end: per layer when its forward
  // began and its backward ended; per bucket when its last gradient was made (its reduction may start).
  std::vector<std::size_t> forward_marks_, backward_marks_, ready_marks_;
  std::vector<double> forward_at_, backward_at_;
};

}  // namespace distbench::train
