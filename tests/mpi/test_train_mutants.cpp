// train's mutation suite: the data-parallel reduction made wrong in one bucket, one way at a time, by a communicator
// that forwards every other call (a test double: nothing in the binary can reach it). train --check's bucket check
// (benchmarks/train/bucket_check) must fail on each mutant with a line naming that bucket, at every rank count above
// one, with and without ZeRO's reduce-scatter; the correct reduction must pass it at every ZeRO stage, bucket size,
// overlap mode and gradient type.
#include "tests/mpi/mpi_environment.hpp"

#include "benchmarks/math/host_math.hpp"
#include "benchmarks/train/bucket_check.hpp"
#include "benchmarks/train/data_parallel.hpp"
#include "benchmarks/train/replica_check.hpp"
#include "core/groups.hpp"
#include "tests/support/forwarding_communicator.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

// A namespace of its own: the MPI tests compile in unity blocks, beside test_data_parallel.cpp's constants.
namespace distbench::train::mutants {
namespace {

using mpitest::connector;
using mpitest::world;

constexpr Seconds kTimeout{60.0};
constexpr int kSteps = 3;
constexpr std::size_t kGlobalBatch = 24;  // divisible by 1, 2, 3, 4
const MlpShape kShape{16, 32, 4, 5};
// 1 KiB buckets: {fc3.bias, fc3.weight, fc2.bias, fc2.weight}, {fc1.bias, fc1.weight}, {fc0.bias, fc0.weight}.
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
  }
  return "?";
}

class Finished final : public Work {
 public:
  bool done() override { return true; }
  void wait(Seconds) override {}
};

// Breaks the reductions of the gradients whose send position lies in [from, to) bytes: the target bucket's (its
// allreduce; with ZeRO its reduce-scatter and tail allreduce). float32 gradients in host memory.
class MutantBucket final : public ForwardingCommunicator {
 public:
  MutantBucket(Communicator& real, Mistake mistake) : ForwardingCommunicator(real), mistake_(mistake) {}
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
  std::size_t from_ = 0, to_ = 0;
};

struct Checked {
  BucketCheckResult found;          // over every step
  std::int64_t diverged = 0;        // ranks whose parameters differ bit for bit from rank 0's at the end
  std::size_t target_elements = 0;  // the target bucket's gradients
};

// kSteps steps of the MLP with `mistake` in bucket `target`, each step checked.
Checked train_checked(Mistake mistake, int stage, std::size_t target = kTarget, bool overlap = true,
                      DType wire = DType::float32, std::size_t bucket_bytes = kBucketBytes) {
  const int ranks = connector().size();
  MutantBucket comm(world().communicator(world_partition(ranks)), mistake);
  HostMath math(1);
  Mlp model(kShape, 11, world().device(), math);
  const TeacherData data(kShape, 5);
  DataParallel dp(comm, model, {bucket_bytes, kGlobalBatch, Optimizer{}, stage, wire});
  Checked out;
  if (target < dp.buckets().size()) {
    const std::size_t first = dp.first_element(target) * size_of(wire);
    out.target_elements = dp.buckets()[target].elements;
    comm.target(first, first + out.target_elements * size_of(wire));
  }
  std::vector<int> replicas;
  for (int r = 0; r < ranks; ++r) replicas.push_back(r);
  BucketCheck check(connector(), replicas, model, dp, wire);
  const std::size_t local = kGlobalBatch / static_cast<std::size_t>(ranks);
  std::vector<float> x(local * kShape.inputs);
  std::vector<int> labels(local);
  for (int s = 0; s < kSteps; ++s) {
    data.batch(static_cast<std::uint64_t>(s) * kGlobalBatch + static_cast<std::uint64_t>(connector().rank()) * local,
               local, x.data(), labels.data());
    model.load_batch(x.data(), labels.data(), local);
    dp.step(overlap, kTimeout, &check);
    const BucketCheckResult r = check.verify(s);
    out.found.wrong += r.wrong;
    if (out.found.first.empty()) out.found.first = r.first;
    for (std::size_t b : r.buckets) {
      if (std::find(out.found.buckets.begin(), out.found.buckets.end(), b) == out.found.buckets.end())
        out.found.buckets.push_back(b);
    }
  }
  dp.gather_parameters(kTimeout);
  out.diverged = diverged_replicas(connector(), model.download_params(), 1);
  return out;
}

// The correct reduction passes: every ZeRO stage, bucket size (one per tensor, smaller than the ranks' blocks,
// several, one), overlap mode, and both gradient types (bfloat16's bound is its own).
TEST(TrainBucketCheck, TheCorrectReductionPasses) {
  for (int stage = 0; stage <= 3; ++stage) {
    for (std::size_t bucket : {std::size_t{0}, std::size_t{256}, kBucketBytes, std::size_t{1} << 20}) {
      for (bool overlap : {true, false}) {
        for (DType wire : {DType::float32, DType::bfloat16}) {
          const Checked c = train_checked(Mistake::none, stage, kTarget, overlap, wire, bucket);
          EXPECT_EQ(c.found.wrong, 0) << fmt::format("ZeRO-{}, bucket {} B, overlap {}, {}: {}", stage, bucket,
                                                     overlap, name(wire), c.found.first);
        }
      }
    }
  }
}

// Each mutant fails the check on every ZeRO path (0: allreduce; 2: reduce-scatter and the tail's allreduce), in the
// broken bucket only, and the line names the first step, that bucket, a rank, an element and both values.
void expect_caught(Mistake mistake) {
  if (connector().size() < 2) GTEST_SKIP() << "one rank has nothing to reduce";
  for (int stage : {0, 2}) {
    const Checked c = train_checked(mistake, stage);
    const std::string where = fmt::format("ZeRO-{}, {} ranks", stage, connector().size());
    EXPECT_GT(c.found.wrong, 0) << where << ": the mutant survived the bucket check";
    EXPECT_EQ(c.found.buckets, std::vector<std::size_t>{kTarget}) << where << ": " << c.found.first;
    EXPECT_EQ(c.found.first.rfind(fmt::format("step 0, bucket {}, rank ", kTarget), 0), 0U) << where << ": "
                                                                                             << c.found.first;
    for (const char* part : {" element ", ": reduced ", "gradients sum to ", "(bound "}) {
      EXPECT_NE(c.found.first.find(part), std::string::npos) << where << ": no '" << part << "' in " << c.found.first;
    }
    // the line that caught it, for the test log
    if (connector().is_root()) std::fprintf(stderr, "[%s, %s] %s\n", name(mistake), where.c_str(), c.found.first.c_str());
  }
}

TEST(TrainMutants, ASkippedBucket) { expect_caught(Mistake::skip); }
TEST(TrainMutants, ABucketReducedTwice) { expect_caught(Mistake::twice); }
TEST(TrainMutants, TheAveragesScaleMissing) { expect_caught(Mistake::unscaled); }
TEST(TrainMutants, TheAveragesScaleTwice) { expect_caught(Mistake::scaled_twice); }
TEST(TrainMutants, ARankSendingFromAShiftedOffset) { expect_caught(Mistake::shifted_send); }
TEST(TrainMutants, ARankSendingAnotherRanksGradients) { expect_caught(Mistake::wrong_peer); }
TEST(TrainMutants, SumsReceivedOneElementOff) { expect_caught(Mistake::shifted_result); }

// train --check's replica check, the other half: the last bucket never reduced makes the replicas diverge without
// ZeRO (with it the gather hands every replica the owner's values, and the bucket check above is what sees it).
TEST(TrainMutants, ASkippedBucketMakesTheReplicasDiverge) {
  const Checked correct = train_checked(Mistake::none, 0);
  EXPECT_EQ(correct.diverged, 0);
  if (connector().size() < 2) GTEST_SKIP() << "one rank has nothing to reduce";
  const Checked skipped = train_checked(Mistake::skip, 0, 2);  // the last of the three buckets
  EXPECT_GT(skipped.diverged, 0) << "a skipped bucket survived the replica check";
}

}  // namespace
}  // namespace distbench::train::mutants
