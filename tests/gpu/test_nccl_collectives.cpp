// Every collective x dtype x operator x placement on NCCL at a few sizes, with #wrong counted on the GPU: one
// process, first with one GPU, then (where several are visible) driving all of them with -g. Also the batched (-m),
// graph (-G), blocking (-z), registered (-R) and asynchronous forms, event timing, and the timeout path. Needs a
// GPU; skips with the reason where none is visible.
#include "backends/nccl/nccl_backend.hpp"
#include "backends/nccl/nccl_group.hpp"

#include "connectors/single_connector.hpp"
#include "core/error.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "tests/gpu/nccl_cases.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace distbench::nccl {
namespace {

using gputest::Case;
using gputest::check_every_case;
using gputest::count_wrong;
using gputest::kTimeout;
using gputest::make_case;

struct Rig {
  connectors::SingleConnector connector;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Communicator> comm;

  explicit Rig(BackendOptions options) {
    backend = nccl_backend_entry().create(connector, options);
    comm = backend->create_communicator(world_partition(1), test_step());
  }
};

int visible_gpus() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

class EveryCollective : public ::testing::TestWithParam<Collective> {};

TEST_P(EveryCollective, ExactOnOneGpu) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  Rig s{BackendOptions{}};
  check_every_case(*s.backend, *s.comm, GetParam());
}

TEST_P(EveryCollective, ExactOnEveryGpuOfTheProcess) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  const int gpus = std::min(visible_gpus(), 8);
  if (gpus < 2) GTEST_SKIP() << "needs 2 GPUs for -g, " << gpus << " visible";
  BackendOptions options;
  options.gpus_per_process = gpus;
  Rig s{options};
  EXPECT_EQ(s.comm->local_parts(), gpus);
  EXPECT_EQ(s.comm->size(), gpus);
  check_every_case(*s.backend, *s.comm, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Nccl, EveryCollective, ::testing::ValuesIn(all_collectives()), [](const auto& info) {
  std::string s(name(info.param));
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
});

// The repeated forms leave the same result as one call when the call is out of place (or staged in place).
void check_repeated(const BackendOptions& options, Collective c, Placement placement) {
  Rig s{options};
  Communicator& comm = *s.comm;
  Case k = make_case(*s.backend, comm, c, DType::float32, ReduceOp::sum, placement, 4099, 0);
  auto timer = comm.make_timer();
  for (int round = 0; round < 3; ++round) {  // the second and third rounds replay a captured graph
    timer->start();
    comm.run_repeated(k.call, 10, test_step());
    timer->stop();
    comm.synchronize(kTimeout);
    EXPECT_GT(timer->seconds(), 0.0);
  }
  EXPECT_EQ(count_wrong(*s.backend, comm, k), 0u) << name(c) << " " << name(placement);
}

TEST(NcclRepeated, AggregatedGroupCalls) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  BackendOptions options;
  options.agg_iters = 4;
  check_repeated(options, Collective::allreduce, Placement::out_of_place);
  check_repeated(options, Collective::alltoall, Placement::out_of_place);
}

TEST(NcclRepeated, CudaGraphReplays) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  BackendOptions options;
  options.graph_launches = 3;
  check_repeated(options, Collective::allreduce, Placement::out_of_place);
  check_repeated(options, Collective::sendrecv, Placement::in_place);  // the staging copy is captured too
  options.agg_iters = 2;
  check_repeated(options, Collective::reduce_scatter, Placement::out_of_place);
}

TEST(NcclRepeated, BlockingCommunicators) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  BackendOptions options;
  options.blocking = true;
  check_repeated(options, Collective::allgather, Placement::out_of_place);
}

TEST(NcclRepeated, RegisteredBuffers) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  BackendOptions options;
  options.register_buffers = true;
  check_repeated(options, Collective::allreduce, Placement::out_of_place);
  check_repeated(options, Collective::broadcast, Placement::in_place);
}

TEST(NcclAsync, WorkCompletesAndTheResultIsExact) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  Rig s{BackendOptions{}};
  Case k = make_case(*s.backend, *s.comm, Collective::allreduce, DType::bfloat16, ReduceOp::max, Placement::in_place,
                     100000, 0);
  auto work = s.comm->start(k.call);
  work->wait(kTimeout);
  EXPECT_TRUE(work->done());
  EXPECT_EQ(count_wrong(*s.backend, *s.comm, k), 0u);
}

TEST(NcclCommunicator, BitwiseReductionsAreRefusedAsUsageErrors) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  Rig s{BackendOptions{}};
  Case k = make_case(*s.backend, *s.comm, Collective::allreduce, DType::int32, ReduceOp::bxor, Placement::out_of_place,
                     16, 0);
  try {
    s.comm->run(k.call, test_step());
    FAIL() << "ran bxor on NCCL";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
  }
}

// A wait that cannot finish aborts the group and says what did not complete; the group refuses later calls.
TEST(NcclGroup, AnExpiredWaitAbortsAndThrowsTimeout) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  NcclGroup group({0}, 0, 1, "'test' (1 rank)", kDefaultTimeout, nullptr);
  try {
    group.wait([] { return false; }, Seconds(0.05), "allreduce of 8 x float32 (sum)");
    FAIL() << "the wait returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::timeout);
    const std::string text = e.what();
    EXPECT_NE(text.find("allreduce of 8 x float32 (sum)"), std::string::npos) << text;
    EXPECT_NE(text.find("did not complete within"), std::string::npos) << text;
  }
  EXPECT_THROW(group.require_usable("next call"), Error);
}

}  // namespace
}  // namespace distbench::nccl
