// The seeds' data parallelism, measurable: every rank trains a replica of the model on its shard of each global
// batch; gradients are all-reduced bucket by bucket as the backward makes them (overlap on: a bucket's allreduce
// starts once its last gradient is made, and the backward keeps the collectives progressing between layers; off:
// every bucket after the backward), then every replica takes the same optimizer step. A bucket's tensors are
// consecutive in the flat gradient buffer (buckets.hpp packs them last layer first), so each bucket is reduced in
// place where it lies: one allreduce per bucket, no copies.
#pragma once

#include "benchmarks/train/buckets.hpp"
#include "benchmarks/train/mlp.hpp"
#include "benchmarks/zero/adam.hpp"
#include "core/buffer.hpp"
#include "core/communicator.hpp"

#include <chrono>
#include <string>
#include <memory>
#include <vector>

namespace distbench::train {

// The optimizer every replica steps with: SGD with momentum (PyTorch's form: v = mu v + g, p -= lr v), or the fused
// Adam update of the ZeRO step.
struct Optimizer {
  enum class Kind { sgd, adam } kind = Kind::sgd;
  float lr = 0.01f;
  float momentum = 0.9f;  // SGD
  zero::AdamConfig adam;  // Adam (its lr is `lr`)
};
// The optimizer's state for n parameters in the model's memory (SGD: a velocity; Adam: m and v), zeroed.
class OptimizerState {
 public:
  OptimizerState(const Optimizer& optimizer, Mlp& model);
  // Step `step` (1-based) of the optimizer over the model's parameters, queued on its math.
  void step(int step);

 private:
  Optimizer optimizer_;
  Mlp& model_;
  std::unique_ptr<Buffer> a_, b_;
};

struct StepTimes {  // one step on this rank, seconds
  double forward = 0, backward = 0, wait = 0, update = 0, total = 0;
};

// When each bucket's allreduce could start (its last gradient made) and when the host saw it end (seconds from the
// step's start), for the timeline.
struct BucketSpan {
  double start = 0, end = 0;
};

// One span of a step's timeline (seconds from the step's start): lane 0 is compute, lane 1 communication.
struct TimelineSpan {
  std::string name;  // "fc3 forward", "fc3 backward", "bucket 2 allreduce (4 tensors, 1.0 MiB)", "update"
  int lane = 0;
  double start = 0, end = 0;
};

class DataParallel {
 public:
  // `bucket_bytes` as buckets.hpp (0: one allreduce per tensor); `global_batch` the batch over all ranks.
  DataParallel(Communicator& comm, Mlp& model, std::size_t bucket_bytes, std::size_t global_batch, Optimizer optimizer);

  // One step on the batch the model has loaded (this rank's share); every wait bounded by `timeout`. Returns with
  // the step complete on the device.
  void step(bool overlap, Seconds timeout);
  // The step's forward and backward with no communication (what compute alone takes on this rank's share); the
  // parameters are left as they were (no update: the replicas must stay equal).
  void compute_only();

  // Every bucket's allreduce with no compute around it, started at once and waited for: the communication a step
  // needs, alone. Seconds. (It reduces the gradients in place again; the next backward overwrites them.)
  double communicate_only(Seconds timeout);

  const std::vector<Bucket>& buckets() const { return buckets_; }
  const StepTimes& last_times() const { return times_; }
  // The last step's timeline (layers, buckets, update), and when it began.
  std::vector<TimelineSpan> last_timeline() const;
  std::chrono::steady_clock::time_point last_began() const { return began_; }

 private:
  void begin();
  void start_bucket(std::size_t b);
  void progress();
  double since_began() const;

  Communicator& comm_;
  Mlp& model_;
  std::size_t global_batch_;
  OptimizerState optimizer_;
  int steps_ = 0;
  std::vector<Bucket> buckets_;
  std::vector<std::size_t> bucket_of_;  // tensor -> bucket
  std::vector<std::size_t> first_of_;   // bucket -> its first element in the flat buffers
  std::vector<std::size_t> pending_;    // bucket -> gradients still to come this step
  std::vector<std::unique_ptr<Work>> work_;
  std::chrono::steady_clock::time_point began_;
  StepTimes times_;
  // Marks of the math's queue (DenseMath::mark), turned into seconds at the step's end: per layer when its forward
  // began and its backward ended; per bucket when its last gradient was made (its allreduce may start).
  std::vector<std::size_t> forward_marks_, backward_marks_, ready_marks_;
  std::vector<BucketSpan> spans_;
  std::vector<double> forward_at_, backward_at_;
};

}  // namespace distbench::train
