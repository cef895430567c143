// train's mutation suite: the data-parallel reduction made wrong in one bucket, one way at a time, by a communicator
// that forwards every other call (a test double: nothing in the binary can reach it). train --check's bucket check
// (benchmarks/train/bucket_check) must fail on each mutant with a line naming that bucket, at every rank count above
// one, with and without ZeRO's reduce-scatter, and with --tp-size 2 where that leaves data-parallel groups of two
// (np 4: groups {0, 2} and {1, 3}); the correct reduction must pass it at every ZeRO stage, bucket size, overlap mode
// and gradient type, with and without tensor parallelism. The tensor-parallel sums made wrong the same way (a
// second double, over the tp group) must fail the comparison with one rank trained alone (reference_check).
#include "tests/mpi/mpi_environment.hpp"

#include "benchmarks/train/bucket_check.hpp"
#include "benchmarks/train/data_parallel.hpp"
#include "benchmarks/train/reference_check.hpp"
#include "benchmarks/train/replica_check.hpp"
#include "benchmarks/train/train_benchmark.hpp"
#include "core/comm/forwarding_communicator.hpp"
#include "core/comm/groups.hpp"
#include "core/device/buffer.hpp"
#include "core/device/half.hpp"
#include "numerics/host_math.hpp"
#include "tests/support/test_step.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <span>

// A namespace of its own: the MPI tests compile in unity blocks, beside test_data_parallel.cpp's constants.
namespace distbench::train::mutants {
namespace {

using mpitest::connector;
using mpitest::world;

constexpr Seconds kTimeout{60.0};
constexpr int kSteps = 3;
constexpr std::size_t kGlobalBatch = 24;  // divisible by 1, 2, 3, 4
const MlpShape kShape{16, 32, 4, 5};
// Five layers: with tensor parallelism fc0 and fc2 column-parallel, fc1 and fc3 row-parallel (a forward sum each), and
// fc2's input gradient a sum in the backward (fc0's is never made).
const MlpShape kTpShape{16, 32, 5, 5};
constexpr std::uint64_t kSeed = 11;  // the model's; the data's is kSeed + 1 (as TrainPlan's)
// 1 KiB buckets without tensor parallelism: {fc3.bias, fc3.weight, fc2.bias, fc2.weight}, {fc1.bias, fc1.weight},
// {fc0.bias, fc0.weight}.
constexpr std::size_t kBucketBytes = 1024;
constexpr std::size_t kTarget = 1;  // the bucket every mutant breaks

enum class Mistake {
  none,
  skip,            // the bucket is never reduced: each rank keeps its own gradients
  twice,           // the bucket's reduction runs twice
  unscaled,        // the sums come out N times too large (the average's 1/N missing)
  scaled_twice,    // N times too small (1/N applied on top of the backward's)
  shifted_send,    // the last rank sends its gradients from one element further on (a wrong block offset)
  wrong_peer,      // rank 0 contributes rank 1's gradients instead of its own (data from the wrong peer)
  shifted_result,  // the sums land one element further on (received at the wrong place)
  wrong_group,     // reduced over the tensor-parallel group instead of the data-parallel one (tp > 1)
  coarse,          // bfloat16 sums rounded to 5 significant bits instead of 8: off by up to 2^-5 of the sum, above
                   // the bf16 bound (about 2^-7 of the summands' magnitudes at np 2) but below 16 times it
};

// What the tensor-parallel group's sums may get wrong (every rank alike).
enum class TpMistake {
  none,
  skip_forward,   // a row-parallel layer's partial products never summed
  skip_backward,  // a column-parallel layer's partial input gradients never summed
  twice_forward,  // the forward's sum taken twice (G times too large)
  mean_forward,   // the forward's average instead of its sum (G times too small)
};

const char* name(Mistake m) {
  switch (m) {
    case Mistake::none: return "none";
    case Mistake::skip: return "skipped";
    case Mistake::twice: return "reduced twice";
    case Mistake::unscaled: return "1/N missing";
    case Mistake::scaled_twice: return "1/N twice";
    case Mistake::shifted_send: return "sent from one element on";
    case Mistake::wrong_peer: return "another rank's gradients";
    case Mistake::shifted_result: return "sums one element off";
    case Mistake::wrong_group: return "reduced over the tp group";
    case Mistake::coarse: return "bf16 sums rounded to 5 bits";
  }
  return "?";
}

const char* name(TpMistake m) {
  switch (m) {
    case TpMistake::none: return "none";
    case TpMistake::skip_forward: return "forward sum skipped";
    case TpMistake::skip_backward: return "backward sum skipped";
    case TpMistake::twice_forward: return "forward summed twice";
    case TpMistake::mean_forward: return "forward averaged";
  }
  return "?";
}

// A bfloat16 value (8 significant bits) rounded to 5 (ties away from zero; the sign bit untouched: no carry reaches
// it from a finite value below the largest exponent).
std::uint16_t coarse_bfloat16(std::uint16_t h) { return static_cast<std::uint16_t>((h + 4u) & ~7u); }

class Finished final : public Work {
 public:
  bool done() override { return true; }
  void wait(Seconds) override {}
};

// Breaks the reductions of the gradients whose send position lies in [from, to) bytes: the target bucket's (its
// allreduce; with ZeRO its reduce-scatter and tail allreduce). float32 gradients in host memory. `other`: the group
// that wrong_group reduces over instead (of the same size).
class MutantBucket final : public ForwardingCommunicator {
 public:
  MutantBucket(Communicator& real, Mistake mistake, Communicator* other = nullptr)
      : ForwardingCommunicator(real), mistake_(mistake), other_(other) {}
  void target(std::size_t from, std::size_t to) {
    from_ = from;
    to_ = to;
  }

  std::unique_ptr<Work> start(const CollectiveCall& call) override {
    const std::size_t at = call.send.byte_offset;
    if (mistake_ == Mistake::none || !is_reduction(call.collective) || at < from_ || at >= to_) {
      return real().start(call);
    }
    const auto n = static_cast<std::size_t>(size());
    const std::size_t sent = call.collective == Collective::reduce_scatter ? call.count * n : call.count;
    auto* send = static_cast<float*>(call.send.data());
    switch (mistake_) {
      case Mistake::skip: {
        CollectiveCall c = call;
        c.count = 0;
        return real().start(c);
      }
      case Mistake::twice: real().start(call)->wait(kTimeout); return real().start(call);
      case Mistake::unscaled: return scaled(call, static_cast<float>(n));
      case Mistake::scaled_twice: return scaled(call, 1.0f / static_cast<float>(n));
      case Mistake::shifted_send:
        if (rank() + 1 == size() && sent > 1) std::memmove(send, send + 1, (sent - 1) * sizeof(float));
        return real().start(call);
      case Mistake::wrong_peer:
        if (rank() == 1) real().start_send(call.send, sent * sizeof(float), 0)->wait(kTimeout);
        if (rank() == 0) real().start_recv(call.send, sent * sizeof(float), 1)->wait(kTimeout);
        return real().start(call);
      case Mistake::shifted_result: {
        real().start(call)->wait(kTimeout);
        auto* r = static_cast<float*>(real().result_at(call).data());
        if (call.count > 1) std::memmove(r + 1, r, (call.count - 1) * sizeof(float));
        return std::make_unique<Finished>();
      }
      case Mistake::wrong_group: other_->start(call)->wait(kTimeout); return std::make_unique<Finished>();
      case Mistake::coarse: {
        real().start(call)->wait(kTimeout);
        auto* r = static_cast<std::uint16_t*>(real().result_at(call).data());
        for (std::size_t i = 0; i < call.count; ++i) r[i] = coarse_bfloat16(r[i]);
        return std::make_unique<Finished>();
      }
      case Mistake::none: break;
    }
    return real().start(call);
  }

 private:
  std::unique_ptr<Work> scaled(const CollectiveCall& call, float factor) {
    real().start(call)->wait(kTimeout);
    auto* r = static_cast<float*>(real().result_at(call).data());
    for (std::size_t i = 0; i < call.count; ++i) r[i] *= factor;
    return std::make_unique<Finished>();
  }

  Mistake mistake_;
  Communicator* other_;
  std::size_t from_ = 0, to_ = 0;
};

// Breaks the tensor-parallel group's sums (Mlp's only calls on it, float32 in host memory): the forward's land in
// the activations after the batch (a byte offset above 0), the backward's at the start of a scratch buffer.
class MutantTp final : public ForwardingCommunicator {
 public:
  MutantTp(Communicator& real, TpMistake mistake) : ForwardingCommunicator(real), mistake_(mistake) {}

  std::unique_ptr<Work> start(const CollectiveCall& call) override {
    const bool forward = call.send.byte_offset > 0;
    CollectiveCall c = call;
    switch (mistake_) {
      case TpMistake::skip_forward:
      case TpMistake::skip_backward:
        if (forward == (mistake_ == TpMistake::skip_forward)) c.count = 0;
        return real().start(c);
      case TpMistake::twice_forward:
        if (forward) real().start(call)->wait(kTimeout);
        return real().start(call);
      case TpMistake::mean_forward: {
        real().start(call)->wait(kTimeout);
        if (forward) {
          auto* r = static_cast<float*>(real().result_at(call).data());
          for (std::size_t i = 0; i < call.count; ++i) r[i] /= static_cast<float>(size());
        }
        return std::make_unique<Finished>();
      }
      case TpMistake::none: break;
    }
    return real().start(call);
  }

 private:
  TpMistake mistake_;
};

// Waits for the wrong bucket: the step's first reduction, when waited for, waits for the second one instead, and its
// own is never waited for (the step reads its sums unreduced, or as far as the library happened to get). Put between
// the step and the check's hold (below) by an observer, each observed step afresh.
class WrongBucketWait final : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;

  std::unique_ptr<Work> start(const CollectiveCall& call) override {
    if (!is_reduction(call.collective)) return real().start(call);
    started_.push_back(real().start(call));
    return std::make_unique<Redirected>(started_, started_.size() == 1 ? 1 : started_.size() - 1);
  }

 private:
  // Waits for started[index] (or the last one started, if fewer).
  class Redirected final : public Work {
   public:
    Redirected(std::vector<std::shared_ptr<Work>>& started, std::size_t index) : started_(started), index_(index) {}
    bool done() override { return target().done(); }
    void wait(Seconds timeout) override { target().wait(timeout); }

   private:
    Work& target() { return *started_[std::min(index_, started_.size() - 1)]; }
    std::vector<std::shared_ptr<Work>>& started_;
    std::size_t index_;
  };
  std::vector<std::shared_ptr<Work>> started_;
};

// The bucket check as train --check runs it, with WrongBucketWait between the step and the check's choice of
// communicator for the reductions.
class WrongWaitObserver final : public BucketObserver {
 public:
  explicit WrongWaitObserver(BucketCheck& check) : check_(check) {}
  void before_reduce(std::size_t bucket) override { check_.before_reduce(bucket); }
  Communicator& reductions(Communicator& real) override {
    mutant_.emplace(check_.reductions(real));
    return *mutant_;
  }

 private:
  BucketCheck& check_;
  std::optional<WrongBucketWait> mutant_;
};

struct Checked {
  BucketCheckResult found;          // over every step
  std::int64_t diverged = 0;        // ranks whose parameters differ bit for bit from their replicas' first
  std::int64_t beyond = 0;          // parameters, over all ranks, off one rank trained alone (reference_check)
  std::size_t target_elements = 0;  // the target bucket's gradients
};

// One checked run: kSteps steps of the model, with `tp` consecutive ranks per tensor-parallel group and data
// parallelism across them, the data-parallel reduction broken by `mistake` in bucket `target` and the tp group's
// sums by `tp_mistake`.
struct Run {
  Mistake mistake = Mistake::none;
  int stage = 0;
  std::size_t target = kTarget;
  bool overlap = true;
  DType wire = DType::float32;
  std::size_t bucket_bytes = kBucketBytes;
  int tp = 1;
  TpMistake tp_mistake = TpMistake::none;
  MlpShape shape = kShape;
  bool wrong_wait = false;  // the step waits for the wrong bucket (WrongBucketWait)
};

std::vector<float> reference(const Run& run, DenseMath& math) {
  TrainPlan plan;
  plan.shape = run.shape;
  plan.batch = kGlobalBatch;
  plan.seed = kSeed;
  return one_rank_reference(plan, kSteps, world().device(), math);
}

// Each step observed by the bucket check, as train --check's warm-up steps; at the end the replicas' bits and the
// parameters against one rank trained on the global batches.
Checked train_checked(const Run& run) {
  const int ranks = connector().size(), me = connector().rank();
  const Partition dp_groups = strided_partition(ranks, run.tp);  // as TrainRun's
  Communicator* tp_real =
      run.tp > 1 ? &world().communicator(consecutive_partition(ranks, run.tp), test_step()) : nullptr;
  MutantBucket comm(world().communicator(dp_groups, test_step()), run.mistake, tp_real);
  std::optional<MutantTp> tp_comm;
  if (tp_real != nullptr) tp_comm.emplace(*tp_real, run.tp_mistake);
  numerics::HostMath math(1);
  Mlp model(run.shape, kSeed, world().device(), math, {tp_comm ? &*tp_comm : nullptr, kTimeout});
  const TeacherData data(run.shape, kSeed + 1);
  DataParallel dp(comm, model, {run.bucket_bytes, kGlobalBatch, Optimizer{}, run.stage, run.wire});
  Checked out;
  if (run.target < dp.buckets().size()) {
    const std::size_t first = dp.first_element(run.target) * size_of(run.wire);
    out.target_elements = dp.buckets()[run.target].elements;
    comm.target(first, first + out.target_elements * size_of(run.wire));
  }
  BucketCheck check(connector(), dp_groups.members_of(me), model, dp, run.wire);
  WrongWaitObserver wrong_wait(check);
  BucketObserver* observer = run.wrong_wait ? static_cast<BucketObserver*>(&wrong_wait) : &check;
  const auto replica = static_cast<std::uint64_t>(me / run.tp);
  const std::size_t local = kGlobalBatch / static_cast<std::size_t>(ranks / run.tp);
  std::vector<float> x(local * run.shape.inputs);
  std::vector<int> labels(local);
  for (int s = 0; s < kSteps; ++s) {
    data.batch(static_cast<std::uint64_t>(s) * kGlobalBatch + replica * local, local, x.data(), labels.data());
    model.load_batch(x.data(), labels.data(), local);
    dp.step(run.overlap, kTimeout, observer);
    const BucketCheckResult r = check.verify(s, test_step());
    out.found.wrong += r.wrong;
    if (out.found.first.empty()) out.found.first = r.first;
    for (std::size_t b : r.buckets) {
      if (std::find(out.found.buckets.begin(), out.found.buckets.end(), b) == out.found.buckets.end())
        out.found.buckets.push_back(b);
    }
  }
  dp.gather_parameters(kTimeout);
  const std::vector<float> params = model.download_params();
  out.diverged = diverged_replicas(connector(), params, run.tp, test_step());
  const std::int64_t beyond =
      parameters_beyond(params, model.shard_of(reference(run, math)), check_tolerance(run.wire));
  for (const std::int64_t b : allgather_value(connector(), beyond, test_step())) out.beyond += b;
  return out;
}

// --tp-size 2 where the world splits into data-parallel groups of two or more (np 4), else none.
std::vector<int> tp_sizes_with_data_parallel_pairs() {
  const int ranks = connector().size();
  return ranks % 2 == 0 && ranks / 2 >= 2 ? std::vector<int>{1, 2} : std::vector<int>{1};
}

// The correct reduction passes: every ZeRO stage, bucket size (one per tensor, smaller than the ranks' blocks,
// several, one), overlap mode, and both gradient types (bfloat16's bound is its own); the parameters agree with one
// rank trained alone and across replicas.
TEST(TrainBucketCheck, TheCorrectReductionPasses) {
  for (int stage = 0; stage <= 3; ++stage) {
    for (std::size_t bucket : {std::size_t{0}, std::size_t{256}, kBucketBytes, std::size_t{1} << 20}) {
      for (bool overlap : {true, false}) {
        for (DType wire : {DType::float32, DType::bfloat16}) {
          const Checked c = train_checked({.stage = stage, .overlap = overlap, .wire = wire, .bucket_bytes = bucket});
          const std::string where =
              fmt::format("ZeRO-{}, bucket {} B, overlap {}, {}", stage, bucket, overlap, name(wire));
          EXPECT_EQ(c.found.wrong, 0) << where << ": " << c.found.first;
          EXPECT_EQ(c.diverged, 0) << where;
          EXPECT_EQ(c.beyond, 0) << where;
        }
      }
    }
  }
}

// The same with --tp-size 2 (every even world: at np 2 one replica, at np 4 two data-parallel groups of two), every
// ZeRO stage: the check compares within each data-parallel group, so no false alarm.
TEST(TrainBucketCheck, TheCorrectReductionPassesWithTensorParallelism) {
  if (connector().size() % 2 != 0) GTEST_SKIP() << "--tp-size 2 does not divide " << connector().size() << " ranks";
  for (int stage = 0; stage <= 3; ++stage) {
    for (std::size_t bucket : {std::size_t{0}, kBucketBytes}) {
      for (bool overlap : {true, false}) {
        for (DType wire : {DType::float32, DType::bfloat16}) {
          for (const MlpShape& shape : {kShape, kTpShape}) {
            const Checked c = train_checked(
                {.stage = stage, .overlap = overlap, .wire = wire, .bucket_bytes = bucket, .tp = 2, .shape = shape});
            const std::string where = fmt::format("tp 2, {} layers, ZeRO-{}, bucket {} B, overlap {}, {}", shape.layers,
                                                  stage, bucket, overlap, name(wire));
            EXPECT_EQ(c.found.wrong, 0) << where << ": " << c.found.first;
            EXPECT_EQ(c.diverged, 0) << where;
            EXPECT_EQ(c.beyond, 0) << where;
          }
        }
      }
    }
  }
}

// Each mutant fails the check on every ZeRO path (0: allreduce; 2: reduce-scatter and the tail's allreduce), without
// tensor parallelism and with --tp-size 2 at np 4, in the broken bucket only, and the line names the first step, that
// bucket, a rank, an element and both values.
void expect_caught(Mistake mistake) {
  if (connector().size() < 2) GTEST_SKIP() << "one rank has nothing to reduce";
  for (int tp : tp_sizes_with_data_parallel_pairs()) {
    if (mistake == Mistake::wrong_group && tp == 1) continue;  // no other group
    for (int stage : {0, 2}) {
      const Checked c = train_checked({.mistake = mistake, .stage = stage, .tp = tp});
      const std::string where = fmt::format("tp {}, ZeRO-{}, {} ranks", tp, stage, connector().size());
      EXPECT_GT(c.found.wrong, 0) << where << ": the mutant survived the bucket check";
      EXPECT_EQ(c.found.buckets, std::vector<std::size_t>{kTarget}) << where << ": " << c.found.first;
      EXPECT_EQ(c.found.first.rfind(fmt::format("step 0, bucket {}, rank ", kTarget), 0), 0U)
          << where << ": " << c.found.first;
      for (const char* part : {" element ", ": reduced ", "gradients sum to ", "(bound "}) {
        EXPECT_NE(c.found.first.find(part), std::string::npos) << where << ": no '" << part << "' in " << c.found.first;
      }
      // the line that caught it, for the test log
      if (connector().is_root()) {
        std::fprintf(stderr, "[%s, %s] %s\n", name(mistake), where.c_str(), c.found.first.c_str());
      }
    }
  }
}

TEST(TrainMutants, ASkippedBucket) { expect_caught(Mistake::skip); }
TEST(TrainMutants, ABucketReducedTwice) { expect_caught(Mistake::twice); }
TEST(TrainMutants, TheAveragesScaleMissing) { expect_caught(Mistake::unscaled); }
TEST(TrainMutants, TheAveragesScaleTwice) { expect_caught(Mistake::scaled_twice); }
TEST(TrainMutants, ARankSendingFromAShiftedOffset) { expect_caught(Mistake::shifted_send); }
TEST(TrainMutants, ARankSendingAnotherRanksGradients) { expect_caught(Mistake::wrong_peer); }
TEST(TrainMutants, SumsReceivedOneElementOff) { expect_caught(Mistake::shifted_result); }
TEST(TrainMutants, ABucketReducedOverTheTensorParallelGroup) {
  if (tp_sizes_with_data_parallel_pairs().size() < 2) GTEST_SKIP() << "needs --tp-size 2 with replicas: np 4";
  expect_caught(Mistake::wrong_group);
}

// A step that waits for the wrong bucket (the first bucket's wait waits for the second's reduction): at np 2, with
// float32 and bfloat16 gradients, with and without ZeRO's reduce-scatter and overlap, the check's hold
// (held_reductions.hpp) leaves the first bucket unreduced every time, and the bucket check names it.
TEST(TrainMutants, AStepWaitingForTheWrongBucket) {
  if (connector().size() < 2) GTEST_SKIP() << "one rank has nothing to reduce";
  for (int stage : {0, 2}) {
    for (DType wire : {DType::float32, DType::bfloat16}) {
      for (bool overlap : {true, false}) {
        const Checked c = train_checked({.stage = stage, .overlap = overlap, .wire = wire, .wrong_wait = true});
        const std::string where =
            fmt::format("ZeRO-{}, {}, overlap {}, {} ranks", stage, name(wire), overlap, connector().size());
        EXPECT_GT(c.found.wrong, 0) << where << ": the wrong wait survived the bucket check";
        EXPECT_EQ(c.found.buckets, std::vector<std::size_t>{0}) << where << ": " << c.found.first;
      }
    }
  }
}

// bfloat16 sums off by up to 2^-5 of each sum (rounded to 5 significant bits): beyond the bf16 bound
// (reduction_error_bound, about 2^-7 of the summands' magnitudes at np 2), within 16 times it: a bound 16 times
// looser passes this mutant.
TEST(TrainMutants, BfloatSumsRoundedToFiveBits) {
  if (connector().size() < 2) GTEST_SKIP() << "one rank has nothing to reduce";
  for (int stage : {0, 2}) {
    const Checked c = train_checked({.mistake = Mistake::coarse, .stage = stage, .wire = DType::bfloat16});
    const std::string where = fmt::format("ZeRO-{}, {} ranks", stage, connector().size());
    EXPECT_GT(c.found.wrong, 0) << where << ": the coarse bf16 sums survived the bucket check";
    EXPECT_EQ(c.found.buckets, std::vector<std::size_t>{kTarget}) << where << ": " << c.found.first;
  }
}

// The bf16 bound is the computation's: the real reduction of random gradients (each rank's float32 values rounded to
// bfloat16 and summed by the backend) never passes it, and comes within a factor of 8 of it, so a bound 16 times
// looser than the derived one fails here.
TEST(TrainBf16Bound, TheRealReductionComesWithinAFactorOf8OfIt) {
  const int ranks = connector().size();
  if (ranks < 2) GTEST_SKIP() << "one rank sums nothing";
  constexpr std::size_t kValues = std::size_t{1} << 16;
  std::mt19937_64 random(static_cast<std::uint64_t>(connector().rank()) * 7919 + 3);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-6, 6), sign(0, 1);
  std::vector<float> mine(kValues);
  std::vector<std::uint16_t> wire(kValues);
  for (std::size_t i = 0; i < kValues; ++i) {
    mine[i] = std::ldexp(mantissa(random), exponent(random)) * (sign(random) ? 1.0f : -1.0f);
    wire[i] = float_to_bfloat16(mine[i]);
  }
  Communicator& comm = world().communicator(world_partition(ranks), test_step());
  ExternalBuffer buffer(wire.data(), wire.size() * sizeof(std::uint16_t));
  comm.start({Collective::allreduce, {&buffer, 0}, {&buffer, 0}, kValues, DType::bfloat16, ReduceOp::sum, 0})
      ->wait(kTimeout);
  const auto all = connector().allgather(std::as_bytes(std::span<const float>(mine)), test_step());
  double worst = 0;
  for (std::size_t i = 0; i < kValues; ++i) {
    double sum = 0, abs_sum = 0;
    for (const auto& part : all) {
      float x = 0;
      std::memcpy(&x, part.data() + i * sizeof(float), sizeof x);
      sum += x;
      abs_sum += std::abs(static_cast<double>(x));
    }
    const double error = std::abs(static_cast<double>(bfloat16_to_float(wire[i])) - sum);
    worst = std::max(worst, error / reduction_error_bound(DType::bfloat16, static_cast<std::size_t>(ranks), abs_sum));
  }
  EXPECT_LE(worst, 1.0) << "the reduction passed its bound";
  EXPECT_GE(worst, 1.0 / 8) << "the bound is more than 8 times what the reduction reaches: not the computation's";
  if (connector().is_root()) {
    std::fprintf(stderr, "[bf16 bound, %d ranks] worst error %.3f of the bound\n", ranks, worst);
  }
}

// train --check's replica check, the other half: the last bucket never reduced makes the replicas diverge without
// ZeRO (with it the gather hands every replica the owner's values, and the bucket check above is what sees it).
TEST(TrainMutants, ASkippedBucketMakesTheReplicasDiverge) {
  const Checked correct = train_checked({});
  EXPECT_EQ(correct.diverged, 0);
  if (connector().size() < 2) GTEST_SKIP() << "one rank has nothing to reduce";
  const Checked skipped = train_checked({.mistake = Mistake::skip, .target = 2});  // the last of the three buckets
  EXPECT_GT(skipped.diverged, 0) << "a skipped bucket survived the replica check";
}

// A wrong tensor-parallel sum, alike on every rank of the tp group: the replicas reduce the gradients they made
// exactly and apply the same sums, so the bucket and replica checks rightly pass (they judge the data-parallel
// reduction); the comparison with one rank trained alone is what fails, at every ZeRO stage.
void expect_tp_caught(TpMistake mistake) {
  if (connector().size() % 2 != 0) GTEST_SKIP() << "--tp-size 2 does not divide " << connector().size() << " ranks";
  for (int stage : {0, 1, 2, 3}) {
    const Checked c = train_checked({.stage = stage, .tp = 2, .tp_mistake = mistake, .shape = kTpShape});
    const std::string where = fmt::format("tp 2, ZeRO-{}, {} ranks", stage, connector().size());
    EXPECT_GT(c.beyond, 0) << where << ": the tp mutant survived the comparison with one rank";
    EXPECT_EQ(c.found.wrong, 0) << where << ": " << c.found.first;
    EXPECT_EQ(c.diverged, 0) << where;
    if (connector().is_root()) {
      std::fprintf(stderr, "[%s, %s] %lld parameters beyond %g of one rank trained alone\n", name(mistake),
                   where.c_str(), static_cast<long long>(c.beyond), check_tolerance(DType::float32));
    }
  }
}

TEST(TrainTpMutants, AForwardSumSkipped) { expect_tp_caught(TpMistake::skip_forward); }
TEST(TrainTpMutants, ABackwardSumSkipped) { expect_tp_caught(TpMistake::skip_backward); }
TEST(TrainTpMutants, AForwardSumTakenTwice) { expect_tp_caught(TpMistake::twice_forward); }
TEST(TrainTpMutants, AForwardAveragedInsteadOfSummed) { expect_tp_caught(TpMistake::mean_forward); }

}  // namespace
}  // namespace distbench::train::mutants
