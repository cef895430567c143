// ZeRO stages 0-3 on real MPI ranks: after three steps every stage's fp32 master weights are bit-identical to a
// single-rank reference of the same global step (the reduced gradients are exact), and the parameters every rank
// holds agree, for every parameter type and a Ψ and layer sizes that N does not divide.
#include "tests/mpi/mpi_environment.hpp"

#include "benchmarks/zero/plan.hpp"
#include "benchmarks/zero/step.hpp"
#include "benchmarks/zero/step_ledger.hpp"
#include "benchmarks/zero/verify.hpp"
#include "core/comm/groups.hpp"
#include "core/device/half.hpp"
#include "core/device/host_device.hpp"
#include "numerics/host_math.hpp"
#include "tests/support/test_step.hpp"
#include "tests/support/zero_mutants.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <cstring>

namespace distbench::zero {
namespace {

using mpitest::connector;
using mpitest::world;

constexpr int kSteps = 3;
constexpr Seconds kTimeout{60.0};

// The same steps on one rank: the gradient of each element is the sum over the ranks (exact), then the same update.
struct Reference {
  std::vector<float> master, params;
  Reference(std::size_t psi, int ranks, DType type) : master(psi), params(psi) {
    std::vector<float> m(psi, 0.0f), v(psi, 0.0f);
    for (std::size_t i = 0; i < psi; ++i) master[i] = initial_weight(i);
    const std::size_t g = size_of(type);
    std::vector<std::byte> grad(psi * g), param(psi * g);
    numerics::AdamConfig c;
    c.grad_scale = 1.0f / static_cast<float>(ranks);
    for (int step = 1; step <= kSteps; ++step) {
      for (std::size_t i = 0; i < psi; ++i) {
        float sum = 0;
        for (int r = 0; r < ranks; ++r) sum += gradient_value(i, r, step);
        if (type == DType::float32) {
          std::memcpy(grad.data() + i * 4, &sum, 4);
        } else {
          const std::uint16_t h = type == DType::bfloat16 ? float_to_bfloat16(sum) : float_to_half(sum);
          std::memcpy(grad.data() + i * 2, &h, 2);
        }
      }
      numerics::adam_update(c, step, type, grad.data(), master.data(), m.data(), v.data(), param.data(), psi);
    }
    for (std::size_t i = 0; i < psi; ++i) {
      std::uint16_t h = 0;
      if (type == DType::float32) {
        std::memcpy(&params[i], param.data() + i * 4, 4);
      } else {
        std::memcpy(&h, param.data() + i * 2, 2);
        params[i] = type == DType::bfloat16 ? bfloat16_to_float(h) : half_to_float(h);
      }
    }
  }
};

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

StepConfig step_config(Stage stage, DType type, std::vector<std::size_t> layers, std::size_t bucket) {
  StepConfig config;
  config.stage = stage;
  config.type = type;
  config.layers = std::move(layers);
  config.bucket = bucket;
  return config;
}

void check_stage(Stage stage, DType type, Zero1Reduce zero1 = Zero1Reduce::allreduce, std::size_t bucket = 0) {
  const std::vector<std::size_t> layers = layer_sizes(1001, 3);  // 334, 334, 333: no N of 2..4 divides them all
  Communicator& comm = world().communicator(world_partition(connector().size()), test_step());
  StepConfig config = step_config(stage, type, layers, bucket);
  config.zero1 = zero1;
  ZeroStep step(comm, config);
  for (int s = 1; s <= kSteps; ++s) step.run(kTimeout);
  const Reference ref(1001, comm.size(), type);
  const auto owned = step.owned();
  const auto master = step.owned_master();
  const auto params = step.owned_params();
  ASSERT_EQ(master.size(), owned.size());
  for (std::size_t k = 0; k < owned.size(); ++k) {
    ASSERT_TRUE(same_bits(master[k], ref.master[owned[k]]))
        << fmt::format("stage {}: master weight {} is {} on rank {}, {} on one rank", static_cast<int>(stage), owned[k],
                       master[k], comm.rank(), ref.master[owned[k]]);
    ASSERT_TRUE(same_bits(params[k], ref.params[owned[k]])) << "parameter " << owned[k];
  }
  // Every element is owned exactly once over the ranks (stages 1-3), or by every rank (stage 0).
  std::uint64_t count = owned.size(), total = 0;
  for (auto c : allgather_value(connector(), count, test_step())) total += c;
  EXPECT_EQ(total, stage == Stage::s0 ? 1001U * static_cast<unsigned>(comm.size()) : 1001U);
  // Stages 0-2: the full parameters every rank holds are the reference's.
  if (stage != Stage::s3) {
    const auto full = step.full_params();
    ASSERT_EQ(full.size(), 1001U);
    for (std::size_t i = 0; i < full.size(); ++i) ASSERT_TRUE(same_bits(full[i], ref.params[i])) << "parameter " << i;
  }
}

// The path a GPU takes (arrays a Device allocates, the update and every transfer through its DenseMath), here with
// host memory behind both, so that it runs wherever the tests do.
struct DeviceArrays {
  HostDevice device;
  numerics::HostMath math{1};
};

class ZeroStages : public ::testing::TestWithParam<DType> {};

TEST_P(ZeroStages, Stage0MatchesOneRank) { check_stage(Stage::s0, GetParam()); }
TEST_P(ZeroStages, Stage1MatchesOneRank) { check_stage(Stage::s1, GetParam()); }
TEST_P(ZeroStages, Stage1WithReduceScatterMatchesOneRank) {
  check_stage(Stage::s1, GetParam(), Zero1Reduce::reduce_scatter);
}
TEST_P(ZeroStages, Stage2MatchesOneRank) { check_stage(Stage::s2, GetParam()); }
// Buckets of 100 (the last of 1); stage 3 ignores them (its segments are the layers).
TEST_P(ZeroStages, BucketedStagesMatchOneRank) {
  for (Stage s : {Stage::s0, Stage::s1, Stage::s2}) check_stage(s, GetParam(), Zero1Reduce::allreduce, 100);
  check_stage(Stage::s1, GetParam(), Zero1Reduce::reduce_scatter, 100);
}
TEST_P(ZeroStages, Stage3MatchesOneRank) { check_stage(Stage::s3, GetParam()); }

// distbench zero --check's own verification: silent on a correct step, and it names the first element of a step
// that is not what a single-rank run gives (here: a step run with another learning rate).
TEST_P(ZeroStages, TheCheckPassesACorrectStepAndNamesTheFirstWrongElement) {
  const std::vector<std::size_t> layers = layer_sizes(1001, 3);
  Communicator& comm = world().communicator(world_partition(connector().size()), test_step());
  for (Stage stage : {Stage::s0, Stage::s1, Stage::s2, Stage::s3}) {
    StepConfig config = step_config(stage, GetParam(), layers, 100);
    ZeroStep good(comm, config);
    for (int s = 1; s <= kSteps; ++s) good.run(kTimeout);
    EXPECT_FALSE(check_step(good, comm.size(), GetParam(), numerics::AdamConfig{}).has_value())
        << static_cast<int>(stage);
    config.adam.lr = 2e-3f;
    ZeroStep bad(comm, config);
    for (int s = 1; s <= kSteps; ++s) bad.run(kTimeout);
    const auto m = check_step(bad, comm.size(), GetParam(), numerics::AdamConfig{});
    if (bad.owned_runs() == 0) continue;
    ASSERT_TRUE(m.has_value()) << static_cast<int>(stage);
    EXPECT_EQ(m->what, "master weight");
    EXPECT_EQ(m->index, bad.owned_run(0).begin);  // every element moved: the first owned one is first
    EXPECT_GT(m->count, 0U);
  }
}

// The step on a device's arrays (uploads, downloads, DenseMath::mixed_adam) ends bit for bit where the step on host
// memory does, and passes the same check.
TEST_P(ZeroStages, TheStepOnDeviceArraysIsTheHostStep) {
  const std::vector<std::size_t> layers = layer_sizes(1001, 3);
  Communicator& comm = world().communicator(world_partition(connector().size()), test_step());
  DeviceArrays on;
  for (Stage stage : {Stage::s0, Stage::s1, Stage::s2, Stage::s3}) {
    const StepConfig config = step_config(stage, GetParam(), layers, 100);
    ZeroStep host(comm, config);
    ZeroStep device(comm, config, &on.device, &on.math);
    for (int s = 1; s <= kSteps; ++s) {
      host.run(kTimeout);
      device.run(kTimeout);
    }
    device.to_host();
    EXPECT_EQ(device.state_bytes(), host.state_bytes());
    EXPECT_EQ(device.buffer_bytes(), host.buffer_bytes());
    const auto m = check_step(device, comm.size(), GetParam(), numerics::AdamConfig{});
    EXPECT_FALSE(m.has_value()) << name(stage) << ": " << (m ? m->what : std::string());
    const auto a = host.owned_master(), b = device.owned_master();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) ASSERT_TRUE(same_bits(a[k], b[k])) << name(stage) << " master " << k;
    const auto pa = host.full_params(), pb = device.full_params();
    ASSERT_EQ(pa.size(), pb.size());
    for (std::size_t k = 0; k < pa.size(); ++k) ASSERT_TRUE(same_bits(pa[k], pb[k])) << name(stage) << " param " << k;
  }
}

// What each rank holds is what the formulas say: model states and buffers, byte for byte.
TEST_P(ZeroStages, HeldBytesAreTheFormulas) {
  const std::vector<std::size_t> layers = layer_sizes(1001, 3);
  Communicator& comm = world().communicator(world_partition(connector().size()), test_step());
  const Precision p = precision_of(GetParam() == DType::float32 ? "fp32" : "bf16");
  for (Stage stage : {Stage::s0, Stage::s1, Stage::s2, Stage::s3}) {
    const ZeroStep step(comm, step_config(stage, GetParam(), layers, 100));
    const auto segments = stage_segments(stage, layers, 100, static_cast<std::size_t>(comm.size()));
    EXPECT_EQ(step.state_bytes(), model_state_bytes(stage, segments, p).total()) << static_cast<int>(stage);
    EXPECT_EQ(step.buffer_bytes(), step_buffer_bytes(stage, segments, p)) << static_cast<int>(stage);
  }
}

INSTANTIATE_TEST_SUITE_P(Types, ZeroStages, ::testing::Values(DType::bfloat16, DType::float16, DType::float32),
                         [](const auto& info) { return std::string(name(info.param)); });

// The mutation suite: each deliberate mistake in the step's communication (tests/support/zero_mutants.hpp) must fail
// the check, which names what differs. One rank alone cannot hold a mistake between ranks.
struct MutantCase {
  ZeroMutant mutant;
  Stage stage;
  const char* what;  // a part of the mismatch's name, or "" for any
};

TEST(ZeroMutants, EveryMutantFailsTheCheckAndNamesWhatDiffers) {
  const int n = connector().size();
  if (n < 2) GTEST_SKIP() << "the mistakes are between ranks: needs 2 or more";
  using M = ZeroMutant;
  const std::vector<MutantCase> cases = {
      {M::no_grad_scale, Stage::s0, ""},
      {M::no_grad_scale, Stage::s1, ""},
      {M::no_grad_scale, Stage::s2, ""},
      {M::no_grad_scale, Stage::s3, ""},
      {M::doubled_grad_scale, Stage::s0, ""},
      {M::doubled_grad_scale, Stage::s3, ""},
      {M::doubled_reduction, Stage::s0, ""},
      {M::doubled_reduction, Stage::s1, ""},
      {M::skipped_bucket, Stage::s0, ""},
      {M::skipped_bucket, Stage::s1, ""},
      {M::skipped_bucket, Stage::s2, ""},
      {M::skipped_bucket, Stage::s3, ""},
      // the ledger names gathers by their place in the step: one left out shifts the names of those after it
      {M::skipped_forward_gather, Stage::s3, "parameter gathered for the"},
      {M::skipped_backward_gather, Stage::s3, "parameter gathered for the"},
      {M::wrong_gather_block, Stage::s1, ""},  // fp32: the parameters are the master weights
      {M::wrong_gather_block, Stage::s2, ""},
  };
  const std::vector<std::size_t> layers = layer_sizes(1001, 3);
  Communicator& comm = world().communicator(world_partition(n), test_step());
  DeviceArrays on;
  // bfloat16 and float32 on host memory; bfloat16 on a device's arrays (the check reads them back).
  for (const auto& [type, device] :
       {std::pair{DType::bfloat16, false}, std::pair{DType::float32, false}, std::pair{DType::bfloat16, true}}) {
    for (const MutantCase& c : cases) {
      const StepConfig config = step_config(c.stage, type, layers, 300);  // buckets of 300: several per stage
      const std::size_t segments = stage_segments(c.stage, layers, 300, static_cast<std::size_t>(n)).size();
      // As zero --check runs the step: through a ledger, which sees what the step (here: the mutant) sent.
      StepLedger ledger(comm, config, device ? &on.math : nullptr);
      ZeroMutantCommunicator mutant(ledger, c.mutant, segments, device ? &on.math : nullptr);
      ZeroStep step(mutant, config, device ? &on.device : nullptr, device ? &on.math : nullptr);
      for (int s = 1; s <= kSteps; ++s) step.run(kTimeout);
      step.to_host();
      const auto m = check_step(step, ledger, n, type, numerics::AdamConfig{});
      const std::uint64_t mine = (m ? m->count : 0) + (check_sent(ledger, kSteps).ok() ? 0 : 1);
      std::uint64_t all = 0;
      for (const auto count : allgather_value(connector(), mine, test_step())) all += count;
      const std::string label = fmt::format("mutant {} at stage {}, {}{}, np {}", name(c.mutant), name(c.stage),
                                            name(type), device ? " on device arrays" : "", n);
      EXPECT_GT(all, 0u) << label << " survived the check";
      if (m && *c.what != '\0') {
        EXPECT_NE(m->what.find(c.what), std::string::npos) << label << ": " << m->what;
      }
    }
  }
}

TEST(ZeroMutants, TheCorrectStepPassesTheSameChecks) {
  const int n = connector().size();
  const std::vector<std::size_t> layers = layer_sizes(1001, 3);
  Communicator& comm = world().communicator(world_partition(n), test_step());
  for (const Stage stage : {Stage::s0, Stage::s1, Stage::s2, Stage::s3}) {
    const StepConfig config = step_config(stage, DType::bfloat16, layers, 300);
    StepLedger ledger(comm, config);
    ZeroStep step(ledger, config);
    for (int s = 1; s <= kSteps; ++s) step.run(kTimeout);
    const auto m = check_step(step, ledger, n, DType::bfloat16, numerics::AdamConfig{});
    EXPECT_FALSE(m.has_value()) << name(stage) << ": " << (m ? m->what : std::string());
    const SentCheck sent = check_sent(ledger, kSteps);
    EXPECT_TRUE(sent.ok()) << name(stage) << ": sent " << sent.sent << " bytes, the formula " << sent.formula;
  }
}

// What a step sends, counted by the ledger from the calls it made, is the paper's formula (formulas.hpp) to the byte:
// every stage, both forms of stage 1, one bucket and several, each parameter type.
TEST(ZeroLedger, BytesSentAreThePapersFormula) {
  const int n = connector().size();
  const std::vector<std::size_t> layers = layer_sizes(1001, 3);
  Communicator& comm = world().communicator(world_partition(n), test_step());
  for (const DType type : {DType::bfloat16, DType::float32}) {
    for (const Stage stage : {Stage::s0, Stage::s1, Stage::s2, Stage::s3}) {
      for (const Zero1Reduce zero1 : {Zero1Reduce::allreduce, Zero1Reduce::reduce_scatter}) {
        for (const std::size_t bucket : {std::size_t{0}, std::size_t{300}}) {
          StepConfig config = step_config(stage, type, layers, bucket);
          config.zero1 = zero1;
          StepLedger ledger(comm, config);
          ZeroStep step(ledger, config);
          for (int s = 1; s <= 2; ++s) step.run(kTimeout);
          const SentCheck sent = check_sent(ledger, 2);
          EXPECT_TRUE(sent.ok()) << fmt::format("stage {} ({}), bucket {}, {}: sent {}, the formula {}", name(stage),
                                                name(zero1), bucket, name(type), sent.sent, sent.formula);
          if (n > 1) {
            EXPECT_GT(sent.sent, 0u);
          }
        }
      }
    }
  }
}

// ZeRO-3 without its gathers (the mutant: the step's gather routine, with the check it held, never runs; here
// the step's phases run without it). The weights and moments are right — the gathered parameters feed no computation
// here — so the check of the state alone passes; the ledger sees the gathers missing (the bytes sent short of 3Ψ, the
// gathers it did see against the wrong layers) and the check fails.
TEST(ZeroLedger, ZeRO3WithoutItsGathersFailsTheCheck) {
  const int n = connector().size();
  if (n < 2) GTEST_SKIP() << "one rank gathers nothing";
  const std::vector<std::size_t> layers = layer_sizes(1001, 3);
  Communicator& comm = world().communicator(world_partition(n), test_step());
  enum class Left { forward, backward, both };
  for (const Left left : {Left::forward, Left::backward, Left::both}) {
    const StepConfig config = step_config(Stage::s3, DType::bfloat16, layers, 0);
    StepLedger ledger(comm, config);
    ZeroStep step(ledger, config);
    for (int s = 1; s <= kSteps; ++s) {
      if (left != Left::forward && left != Left::both) step.forward_gathers(kTimeout);
      if (left != Left::backward && left != Left::both) step.backward_gathers(kTimeout);
      step.reduce(kTimeout);
      step.update();
    }
    const char* label = left == Left::forward ? "forward" : left == Left::backward ? "backward" : "both";
    EXPECT_FALSE(check_step(step, n, DType::bfloat16, numerics::AdamConfig{}).has_value())
        << label << ": the state alone was expected right";
    const SentCheck sent = check_sent(ledger, kSteps);
    EXPECT_FALSE(sent.ok()) << label << ": the missing gathers survived the bytes check";
    EXPECT_LT(sent.sent, sent.formula) << label;
    if (left != Left::both) {
      const auto m = check_step(step, ledger, n, DType::bfloat16, numerics::AdamConfig{});
      const std::uint64_t mine = m ? m->count : 0;
      std::uint64_t all = 0;
      for (const auto count : allgather_value(connector(), mine, test_step())) all += count;
      EXPECT_GT(all, 0u) << label << ": the gathers seen survived the comparison with the reference";
    }
  }
}

}  // namespace
}  // namespace distbench::zero
