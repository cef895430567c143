// NCCL across processes, formed by mpirun (MPI's connector) or by tests/env/launch.py (env://, as torchrun would):
// every collective over the world (and in consecutive groups of 2 from 4 ranks), ZeRO's step on the GPU against a
// single-rank reference with its deliberate mistakes caught, and the hang path: a call whose peer never joins times
// out on both sides and aborts the communicators.
// On a machine with fewer GPUs than local ranks each rank gets its own NCCL_HOSTID, which lets NCCL run several
// ranks on one GPU (over sockets: correct, not fast). Without a GPU every test skips with the reason.
#include "backends/nccl/gpu_info.hpp"
#include "backends/registry.hpp"
#include "benchmarks/zero/plan.hpp"
#include "benchmarks/zero/step.hpp"
#include "benchmarks/zero/verify.hpp"
#include "core/comm/world.hpp"
#include "tests/gpu/nccl_cases.hpp"

#include <cuda_runtime_api.h>
#include "tests/mpi/rank_failure_printer.hpp"
#include "tests/support/test_step.hpp"
#include "tests/support/zero_mutants.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

namespace distbench::gputest {
namespace {

struct Shared {
  std::unique_ptr<Connector> connector;
  std::unique_ptr<World> world;  // null where NCCL cannot run
  std::string unavailable;
};

Shared& shared() {
  static Shared s;  // set in main, before the tests
  return s;
}

#define SKIP_WITHOUT_NCCL_WORLD()                              \
  do {                                                         \
    if (!shared().world) GTEST_SKIP() << shared().unavailable; \
  } while (false)

class EveryCollective : public ::testing::TestWithParam<Collective> {};

TEST_P(EveryCollective, ExactOverTheWorld) {
  SKIP_WITHOUT_NCCL_WORLD();
  World& world = *shared().world;
  check_every_case(world.backend(), world.communicator(world_partition(world.connector().size()), test_step()),
                   GetParam());
}

TEST_P(EveryCollective, ExactWithinConsecutiveGroups) {
  SKIP_WITHOUT_NCCL_WORLD();
  World& world = *shared().world;
  const int size = world.connector().size();
  if (size % 2 != 0 || size < 4) GTEST_SKIP() << "needs at least 4 ranks in an even number, have " << size;
  Communicator& comm = world.communicator(consecutive_partition(size, 2), test_step());
  for (Placement placement : {Placement::out_of_place, Placement::in_place}) {
    Case k = make_case(world.backend(), comm, GetParam(), DType::int32, ReduceOp::sum, placement, 33, 1);
    comm.run(k.call, test_step());
    comm.synchronize(kTimeout);
    EXPECT_EQ(count_wrong(world.backend(), comm, k), 0u) << name(GetParam()) << " " << name(placement);
  }
}

INSTANTIATE_TEST_SUITE_P(NcclMpi, EveryCollective, ::testing::ValuesIn(all_collectives()), [](const auto& info) {
  std::string s(name(info.param));
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
});

// ZeRO on NCCL: the step's arrays on the GPU, the update by the CUDA kernel. Every stage ends where a single-rank
// run of the same steps on the CPU does (bfloat16 and float32), and each deliberate mistake fails that check.
TEST(NcclZero, EveryStageMatchesOneRankAndEveryMistakeIsCaught) {
  SKIP_WITHOUT_NCCL_WORLD();
  using namespace zero;
  World& world = *shared().world;
  Connector& connector = world.connector();
  const int n = connector.size();
  Communicator& comm = world.communicator(world_partition(n), test_step());
  const std::vector<std::size_t> layers = layer_sizes(1001, 3);
  const auto run = [&](Stage stage, DType type, std::optional<ZeroMutant> mutant) {
    StepConfig config;
    config.stage = stage;
    config.type = type;
    config.layers = layers;
    config.bucket = 300;
    const std::size_t segments = stage_segments(stage, layers, 300, static_cast<std::size_t>(n)).size();
    // As zero --check runs it: through a ledger, the mistakes above it (in the step).
    StepLedger ledger(comm, config, world.device().math());
    ZeroMutantCommunicator wrong(ledger, mutant.value_or(ZeroMutant::no_grad_scale), segments, world.device().math());
    Communicator& used = mutant ? static_cast<Communicator&>(wrong) : ledger;
    ZeroStep step(used, config, &world.device(), world.device().math());
    for (int k = 0; k < 3; ++k) step.run(kTimeout);
    step.to_host();
    const auto m = check_step(step, ledger, n, type, numerics::AdamConfig{});
    const std::uint64_t mine = (m ? m->count : 0) + (check_sent(ledger, 3).ok() ? 0 : 1);
    std::uint64_t all = 0;
    for (const auto count : allgather_value(connector, mine, test_step())) all += count;
    return std::pair{all, m ? m->what : std::string()};
  };
  for (const DType type : {DType::bfloat16, DType::float32}) {
    for (const Stage stage : {Stage::s0, Stage::s1, Stage::s2, Stage::s3}) {
      const auto [wrong, what] = run(stage, type, std::nullopt);
      EXPECT_EQ(wrong, 0u) << "stage " << name(stage) << " " << name(type) << ": " << what;
    }
  }
  if (n < 2) return;  // the mistakes below are between ranks
  using M = ZeroMutant;
  const std::vector<std::pair<M, Stage>> mutants = {
      {M::no_grad_scale, Stage::s0},          {M::doubled_grad_scale, Stage::s3},
      {M::doubled_reduction, Stage::s1},      {M::skipped_bucket, Stage::s2},
      {M::skipped_forward_gather, Stage::s3}, {M::skipped_backward_gather, Stage::s3},
      {M::wrong_gather_block, Stage::s1},     {M::wrong_gather_block, Stage::s2}};
  for (const auto& [mutant, stage] : mutants) {
    const auto [wrong, what] = run(stage, DType::bfloat16, mutant);
    EXPECT_GT(wrong, 0u) << "mutant " << name(mutant) << " at stage " << name(stage) << " survived";
  }
}

// Rank 0 waits for an allreduce that rank 1 has not joined: it times out and aborts; rank 1 then joins a call that
// can never complete and times out (or sees the peer's abort) too.
TEST(NcclMpi, AWaitForAMissingPeerTimesOutAndAborts) {
  SKIP_WITHOUT_NCCL_WORLD();
  World& world = *shared().world;
  Connector& connector = world.connector();
  if (connector.size() < 2) GTEST_SKIP() << "needs a second rank that stays away";
  auto comm =
      world.backend().create_communicator(world_partition(connector.size()), test_step());  // fresh: it will be aborted
  Case k = make_case(world.backend(), *comm, Collective::allreduce, DType::float32, ReduceOp::sum,
                     Placement::out_of_place, 1024, 0);
  // NCCL (2.28) connects a communicator's peers at its first collective, and a non-blocking communicator then
  // reports "in progress" until the peer joins: connect them with one completed call first, so that the wait below is
  // what times out.
  comm->run(k.call, test_step());
  comm->synchronize(Seconds(60));
  auto expect_abort = [&](Seconds wait) {
    try {
      comm->start(k.call)->wait(wait);
      ADD_FAILURE() << "the wait should have failed on rank " << connector.rank();
    } catch (const Error& e) {
      EXPECT_TRUE(e.code() == ExitCode::timeout || e.code() == ExitCode::failure) << e.what();
      EXPECT_NE(std::string(e.what()).find("allreduce"), std::string::npos) << e.what();
    }
    EXPECT_THROW(comm->run(k.call, test_step()), Error);  // aborted: refuses further calls
  };
  if (connector.rank() == 0) {
    expect_abort(Seconds(0.5));
    connector.barrier(test_step());
  } else {
    connector.barrier(test_step());
    expect_abort(Seconds(2.0));
  }
}

}  // namespace
}  // namespace distbench::gputest

int main(int argc, char** argv) {
  using namespace distbench;
  auto& s = gputest::shared();
  s.connector = make_connector(argc, argv);
  if (const auto reason = nccl::cuda_unavailable_reason()) {
    s.unavailable = *reason;
  } else {
    int gpus = 0;
    cudaGetDeviceCount(&gpus);
    if (s.connector->local_size() > gpus && std::getenv("NCCL_HOSTID") == nullptr) {
      const std::string id = "distbench-test-rank-" + std::to_string(s.connector->rank());
      setenv("NCCL_HOSTID", id.c_str(), 1);  // before NCCL reads it at the first communicator
    }
    const auto& entry = choose_backend("nccl", *s.connector);
    s.world = std::make_unique<World>(*s.connector, entry.create(*s.connector, BackendOptions{}), test_step());
  }

  ::testing::InitGoogleTest(&argc, argv);
  mpitest::quiet_unless_rank0(s.connector->rank());
  int code = RUN_ALL_TESTS();
  for (int other : allgather_value(*s.connector, code, test_step())) code = std::max(code, other);
  s.world.reset();
  s.connector.reset();
  return code;
}
