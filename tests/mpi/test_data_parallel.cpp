// Data parallelism on real MPI ranks: after a few steps, N ranks that each trained on their shard of every global
// batch (gradients all-reduced bucket by bucket) hold the parameters one rank holds after training on the whole
// global batches, within float rounding (the reduction order differs), for every bucket size and both overlap modes.
#include "tests/mpi/mpi_environment.hpp"

#include "benchmarks/train/data_parallel.hpp"
#include "benchmarks/train/train_benchmark.hpp"
#include "core/comm/groups.hpp"
#include "core/device/host_device.hpp"
#include "numerics/host_math.hpp"
#include "tests/support/test_step.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace distbench::train {
namespace {

using mpitest::connector;
using mpitest::world;

constexpr Seconds kTimeout{60.0};
constexpr int kSteps = 4;
constexpr std::size_t kGlobalBatch = 24;  // divisible by 1, 2, 3
const MlpShape kShape{16, 32, 4, 5};

Optimizer adam(float lr = 1e-3f) {
  Optimizer o;
  o.kind = Optimizer::Kind::adam;
  o.lr = lr;
  return o;
}

std::vector<float> train(Communicator& comm, std::size_t bucket_bytes, bool overlap, std::vector<float>* losses,
                         int steps = kSteps, const Optimizer& optimizer = adam(), int zero_stage = 0,
                         DType wire = DType::float32) {
  const auto ranks = static_cast<std::size_t>(comm.size());
  const std::size_t local = kGlobalBatch / ranks;
  numerics::HostMath math(1);
  Mlp model(kShape, 11, world().device(), math);
  const TeacherData data(kShape, 5);
  DataParallel dp(comm, model, {bucket_bytes, kGlobalBatch, optimizer, zero_stage, wire});
  std::vector<float> x(local * kShape.inputs);
  std::vector<int> labels(local);
  for (int s = 0; s < steps; ++s) {
    data.batch(static_cast<std::uint64_t>(s) * kGlobalBatch + static_cast<std::uint64_t>(comm.rank()) * local, local,
               x.data(), labels.data());
    model.load_batch(x.data(), labels.data(), local);
    dp.step(overlap, kTimeout);
    if (losses != nullptr) losses->push_back(model.loss());
  }
  dp.gather_parameters(kTimeout);
  return model.download_params();
}

// Not inlined: GCC 12 sees a false -Wfree-nonheap-object when it inlines these vectors into the test body.
[[gnu::noinline]] std::vector<float> one_rank_reference(const Optimizer& optimizer = adam(),
                                                        const MlpShape& shape = kShape) {
  HostDevice device;
  numerics::HostMath math(1);
  Mlp model(shape, 11, device, math);
  const TeacherData data(shape, 5);
  OptimizerState state(optimizer, model);
  std::vector<float> x(kGlobalBatch * shape.inputs);
  std::vector<int> labels(kGlobalBatch);
  for (int s = 0; s < kSteps; ++s) {
    data.batch(static_cast<std::uint64_t>(s) * kGlobalBatch, kGlobalBatch, x.data(), labels.data());
    model.load_batch(x.data(), labels.data(), kGlobalBatch);
    model.forward();
    model.backward(1.0f);
    state.step(s + 1);
  }
  return model.download_params();
}

// Every bucket size (one per tensor, buckets smaller than the ranks' blocks, several, one), both overlap modes and
// every ZeRO stage: the same parameters as one rank, and on every rank the same, bit for bit (every element was
// updated once, by its owner or by all alike, from the same sums).
TEST(DataParallel, NRanksEndWhereOneRankWithTheGlobalBatchEnds) {
  Communicator& comm = world().communicator(world_partition(connector().size()), test_step());
  const std::vector<float> reference = one_rank_reference();
  for (int stage = 0; stage <= 3; ++stage) {
    for (std::size_t bucket : {std::size_t{0}, std::size_t{256}, std::size_t{4096}, std::size_t{1} << 20}) {
      for (bool overlap : {true, false}) {
        const std::vector<float> params = train(comm, bucket, overlap, nullptr, kSteps, adam(), stage);
        const double diff = largest_relative_difference(params, reference);
        EXPECT_LT(diff, 1e-3) << fmt::format("ZeRO-{}, bucket {} B, overlap {}: largest relative difference {:.3g}",
                                             stage, bucket, overlap, diff);
        const auto sum = std::accumulate(params.begin(), params.end(), 0.0);
        const auto sums = allgather_value(connector(), sum, test_step());
        for (double f : sums) EXPECT_EQ(f, sums.front()) << fmt::format("ZeRO-{}, bucket {} B", stage, bucket);
      }
    }
  }
}

// Gradients as bfloat16 on the wire: within bfloat16's tolerance of one rank in float32, and not equal to it (the
// conversion happened), at every ZeRO stage; every rank alike. SGD: Adam divides near-zero gradients by their own
// size, which turns their rounding into whole steps.
TEST(DataParallel, Bfloat16GradientsStayWithinTheirRounding) {
  Communicator& comm = world().communicator(world_partition(connector().size()), test_step());
  const Optimizer sgd;
  const std::vector<float> reference = one_rank_reference(sgd);
  for (int stage = 0; stage <= 3; ++stage) {
    const std::vector<float> params = train(comm, 256, true, nullptr, kSteps, sgd, stage, DType::bfloat16);
    const double diff = largest_relative_difference(params, reference);
    EXPECT_LT(diff, check_tolerance(DType::bfloat16)) << fmt::format("ZeRO-{}: {:.3g}", stage, diff);
    EXPECT_GT(diff, 1e-5) << fmt::format("ZeRO-{}: as close as float32 gradients: were they converted?", stage);
    const auto sums = allgather_value(connector(), std::accumulate(params.begin(), params.end(), 0.0), test_step());
    for (double f : sums) EXPECT_EQ(f, sums.front()) << fmt::format("ZeRO-{}", stage);
  }
}

// Tensor parallelism inside groups of G consecutive ranks, data parallelism across them (train --tp-size): each
// rank's part of the model ends where that part of one rank's model ends, at ZeRO stages 0 and 2.
TEST(DataParallel, TensorParallelGroupsEndWhereOneRankEnds) {
  const int n = connector().size();
  if (n < 2) GTEST_SKIP() << "tensor parallelism needs 2 ranks";
  const MlpShape shape{16, 48, 5, 5};  // two hidden pairs split (48: any group of 2, 3, 4), the classifier whole
  const Optimizer sgd;
  numerics::HostMath math(1);
  const std::vector<float> reference = one_rank_reference(sgd, shape);
  for (int g : {2, 3, 4}) {
    if (n % g != 0 || g > n) continue;
    Communicator& tp = world().communicator(consecutive_partition(n, g), test_step());
    Communicator& dp = world().communicator(strided_partition(n, g), test_step());
    for (int stage : {0, 2}) {
      Mlp model(shape, 11, world().device(), math, {&tp, kTimeout});
      DataParallel replica(dp, model, {256, kGlobalBatch, sgd, stage});
      const std::size_t replicas = static_cast<std::size_t>(n / g), local = kGlobalBatch / replicas;
      const auto which = static_cast<std::uint64_t>(connector().rank() / g);
      const TeacherData data(shape, 5);
      std::vector<float> x(local * shape.inputs);
      std::vector<int> labels(local);
      for (int s = 0; s < kSteps; ++s) {
        data.batch(static_cast<std::uint64_t>(s) * kGlobalBatch + which * local, local, x.data(), labels.data());
        model.load_batch(x.data(), labels.data(), local);
        replica.step(true, kTimeout);
      }
      replica.gather_parameters(kTimeout);
      const std::vector<float> mine = model.download_params();
      EXPECT_LT(mine.size(), reference.size()) << "a rank holds only its part";
      const double diff = largest_relative_difference(mine, model.shard_of(reference));
      EXPECT_LT(diff, 1e-3) << fmt::format("--tp-size {}, ZeRO-{}: largest relative difference {:.3g}", g, stage, diff);
    }
  }
}

TEST(DataParallel, BucketsAreOneAllreduceEachAndCoverTheModel) {
  Communicator& comm = world().communicator(world_partition(connector().size()), test_step());
  numerics::HostMath math(1);
  Mlp model(kShape, 1, world().device(), math);
  DataParallel dp(comm, model, {0, kGlobalBatch, Optimizer{}});
  EXPECT_EQ(dp.buckets().size(), model.tensors().size());  // 0: one per tensor
  DataParallel one(comm, model, {std::size_t{1} << 30, kGlobalBatch, Optimizer{}});
  EXPECT_EQ(one.buckets().size(), 1U);  // 11 KiB of gradients: all in DDP's 1 MiB first bucket
  // 1 KiB: {fc3.bias, fc3.weight, fc2.bias, fc2.weight}, {fc1.bias, fc1.weight}, {fc0.bias, fc0.weight}
  DataParallel small(comm, model, {1024, kGlobalBatch, Optimizer{}});
  ASSERT_EQ(small.buckets().size(), 3U);
  EXPECT_EQ(small.buckets()[0].tensors, (std::vector<std::size_t>{7, 6, 5, 4}));
}

TEST(DataParallel, TheLossFalls) {
  Communicator& comm = world().communicator(world_partition(connector().size()), test_step());
  std::vector<float> losses;
  train(comm, 4096, true, &losses, 60, adam(1e-2f));
  const auto mean = [&](std::size_t from) {
    float sum = 0;
    for (std::size_t i = from; i < from + 10; ++i) sum += losses[i];
    return sum / 10;
  };
  EXPECT_LT(mean(50), 0.95f * mean(0)) << "first 10 steps " << mean(0) << ", last 10 " << mean(50);
}

}  // namespace
}  // namespace distbench::train
