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
#include "core/communicator.hpp"

#include <chrono>
#include <memory>
#include <vector>

namespace distbench::train {

struct StepTimes {  // one step on this rank, seconds
  double forward = 0, backward = 0, wait = 0, update = 0, total = 0;
};

// When each bucket's allreduce started and ended (seconds from the step's start), for the timeline.
struct BucketSpan {
  double start = 0, end = 0;
};

class DataParallel {
 public:
  // `bucket_bytes` as buckets.hpp (0: one allreduce per tensor); `global_batch` the batch over all ranks.
  DataParallel(Communicator& comm, Mlp& model, std::size_t bucket_bytes, std::size_t global_batch,
               zero::AdamConfig adam);

  // One step on this rank's `local_batch` samples; every wait bounded by `timeout`. Returns the local loss.
  float step(const float* x, const int* labels, std::size_t local_batch, bool overlap, Seconds timeout);
  // The step's forward and backward with no communication (what compute alone takes on this rank's share); the
  // parameters are left as they were (no update: the replicas must stay equal).
  float compute_only(const float* x, const int* labels, std::size_t local_batch);

  const std::vector<Bucket>& buckets() const { return buckets_; }
  const StepTimes& last_times() const { return times_; }
  const std::vector<BucketSpan>& last_spans() const { return spans_; }

 private:
  void start_bucket(std::size_t b);
  void progress();
  void update();

  Communicator& comm_;
  Mlp& model_;
  std::size_t global_batch_;
  zero::AdamConfig adam_;
  int steps_ = 0;
  std::vector<Bucket> buckets_;
  std::vector<std::size_t> bucket_of_;  // tensor -> bucket
  std::vector<std::size_t> first_of_;   // bucket -> its first element in the flat buffers
  std::vector<std::size_t> pending_;    // bucket -> gradients still to come this step
  std::vector<std::unique_ptr<Work>> work_;
  std::vector<float> m_, v_;
  ExternalBuffer grads_view_{nullptr, 0};
  std::chrono::steady_clock::time_point began_;
  StepTimes times_;
  std::vector<BucketSpan> spans_;
};

}  // namespace distbench::train
