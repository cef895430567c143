// Every collective x dtype x operator x placement on the MPI backend, blocking and asynchronous, at sizes that
// do not divide evenly, a single element, and the largest tested size: #wrong must be 0 on every rank.
#include "core/comm/forwarding_communicator.hpp"
#include "tests/mpi/mpi_call_counts.hpp"
#include "tests/mpi/mpi_environment.hpp"

#include "backends/mpi/mpi_collectives.hpp"
#include "benchmarks/collective/fused_allreduce.hpp"
#include "benchmarks/collective/measure.hpp"
#include "core/comm/groups.hpp"
#include "core/device/pattern.hpp"
#include "core/error.hpp"
#include "tests/support/test_step.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>

namespace distbench::collective {
namespace {

using mpitest::world;

constexpr Seconds kTimeout{60.0};

std::vector<std::size_t> counts_for(int nranks) {
  return {1, 7, static_cast<std::size_t>(3 * nranks + 1), 1000, 65536};  // 65536: the largest tested count
}

enum class Form { blocking, async, prepared };

// Runs one case on `comm` and returns the wrong elements counted on this rank.
std::uint64_t run_case(Communicator& comm, Collective c, DType t, ReduceOp op, Placement placement, std::size_t count,
                       int root, Form form, CallForm call_form = CallForm::block) {
  Device& device = world().device();
  const int n = comm.size();
  const int me = comm.rank();
  const auto shape = buffer_shape(c, count, n, me);
  const std::size_t elem = size_of(t);
  auto send = device.allocate(shape.send_count * elem);
  auto recv = device.allocate(std::max(shape.send_count, shape.recv_count) * elem);
  CollectiveCall call{c, {send.get(), 0}, {recv.get(), 0}, count, t, op, root, call_form};
  if (placement == Placement::in_place) {
    call.send = {recv.get(), shape.in_place_send_offset * elem};
    call.recv = {recv.get(), shape.in_place_recv_offset * elem};
  }
  const auto pattern = make_pattern(c, op, t, n);
  device.poison({recv.get(), 0}, recv->bytes());
  device.fill(call.send, shape.send_count, t, FillSpec{pattern, me});
  if (form == Form::blocking) {
    comm.run(call, test_step());
    comm.synchronize(kTimeout);
  } else if (form == Form::prepared) {
    comm.prepared(call)(test_step());
    comm.synchronize(kTimeout);
  } else {
    auto work = comm.start(call);
    work->wait(kTimeout);
    EXPECT_TRUE(work->done());
  }
  return device.count_wrong(comm.result_at(call), t, CheckSpec{pattern, op, c, count, root, me});
}

void check_all(Communicator& comm, Collective c, Form form) {
  const int root = comm.size() - 1;  // not rank 0, to catch a root that is ignored
  for (DType t : all_dtypes()) {
    for (ReduceOp op : is_reduction(c) ? std::vector<ReduceOp>(all_reduce_ops().begin(), all_reduce_ops().end())
                                       : std::vector<ReduceOp>{ReduceOp::sum}) {
      if (!defined_for(op, t)) continue;
      for (Placement placement : {Placement::out_of_place, Placement::in_place}) {
        for (std::size_t count : counts_for(comm.size())) {
          const auto wrong = run_case(comm, c, t, op, placement, count, root, form);
          EXPECT_EQ(wrong, 0u) << name(c) << " " << name(t) << " " << name(op) << " " << name(placement) << " count "
                               << count << " on group rank " << comm.rank() << " of " << comm.size();
        }
      }
    }
  }
}

class EveryCollective : public ::testing::TestWithParam<Collective> {};

TEST_P(EveryCollective, BlockingIsExact) {
  check_all(world().communicator(world_partition(mpitest::connector().size()), test_step()), GetParam(),
            Form::blocking);
}

TEST_P(EveryCollective, AsyncIsExact) {
  check_all(world().communicator(world_partition(mpitest::connector().size()), test_step()), GetParam(), Form::async);
}

TEST_P(EveryCollective, ExactWithinConsecutiveGroups) {
  const int size = mpitest::connector().size();
  if (size % 2 != 0 || size < 4) GTEST_SKIP() << "needs at least 4 ranks in an even number, have " << size;
  Communicator& comm = world().communicator(consecutive_partition(size, 2), test_step());
  for (Placement placement : {Placement::out_of_place, Placement::in_place}) {
    const auto wrong = run_case(comm, GetParam(), DType::int32, ReduceOp::sum, placement, 33, 1, Form::blocking);
    EXPECT_EQ(wrong, 0u) << name(GetParam()) << " " << name(placement);
  }
}

INSTANTIATE_TEST_SUITE_P(MPI, EveryCollective, ::testing::ValuesIn(all_collectives()), [](const auto& info) {
  std::string s(name(info.param));
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
});

// An independent check of the verification itself: the sum of the ranks' inputs, computed here by hand.
// Reduce-scatter in MPI's two forms (CallForm: --timing osu|imb call the vector form, as IMB and OSU do): each is
// exact in every way distbench calls it, and each reaches its own MPI function (counted through PMPI).
TEST(MPICollectives, ReduceScatterInEitherFormIsExactAndCallsItsOwnFunction) {
  Communicator& comm = world().communicator(world_partition(mpitest::connector().size()), test_step());
  for (const CallForm call_form : {CallForm::block, CallForm::vector}) {
    for (const Form form : {Form::blocking, Form::async, Form::prepared}) {
      for (const DType t : {DType::float32, DType::int32, DType::bfloat16}) {
        for (const ReduceOp op : {ReduceOp::sum, ReduceOp::avg, ReduceOp::max}) {
          if (!defined_for(op, t)) continue;
          for (const Placement placement : {Placement::out_of_place, Placement::in_place}) {
            for (const std::size_t count : counts_for(comm.size())) {
              const auto before = mpitest::reduce_scatter_calls();
              const auto wrong =
                  run_case(comm, Collective::reduce_scatter, t, op, placement, count, 0, form, call_form);
              const auto after = mpitest::reduce_scatter_calls();
              const std::string what =
                  fmt::format("{} form, {}, {} {} {} count {}", call_form == CallForm::vector ? "vector" : "block",
                              form == Form::async      ? "async"
                              : form == Form::prepared ? "prepared"
                                                       : "blocking",
                              name(t), name(op), name(placement), count);
              EXPECT_EQ(wrong, 0u) << what;
              EXPECT_EQ(after.vector - before.vector, call_form == CallForm::vector ? 1 : 0) << what;
              EXPECT_EQ(after.block - before.block, call_form == CallForm::block ? 1 : 0) << what;
            }
          }
        }
      }
    }
  }
}

TEST(MPICollectives, AllreduceSumMatchesAHandComputedSum) {
  Communicator& comm = world().communicator(world_partition(mpitest::connector().size()), test_step());
  const int n = comm.size();
  std::vector<std::int32_t> data(100);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::int32_t>(i) * (comm.rank() + 1);
  ExternalBuffer buffer(data.data(), data.size() * sizeof(std::int32_t));
  comm.run({Collective::allreduce, {&buffer, 0}, {&buffer, 0}, data.size(), DType::int32, ReduceOp::sum, 0},
           test_step());
  for (std::size_t i = 0; i < data.size(); ++i) {
    EXPECT_EQ(data[i], static_cast<std::int32_t>(i) * n * (n + 1) / 2) << "element " << i;
  }
}

// Open MPI 4.1's temporary buffers, one row per collective (backends/mpi/mpi_collectives.cpp): what the memory
// budget adds to distbench's own buffers, as measured; 2S saturates rather than wraps.
TEST(MPICollectives, OpenMpiScratchIsEachCollectivesMeasuredShare) {
  constexpr std::uint64_t s = 1 << 20;
  const auto scratch = [](Collective c, bool in_place, std::uint64_t bytes) {
    return mpi::mpi_collective(c).library_scratch(bytes, in_place);
  };
  for (const bool in_place : {false, true}) {
    EXPECT_EQ(scratch(Collective::allreduce, in_place, s), s / 2);
    EXPECT_EQ(scratch(Collective::reduce, in_place, s), 2 * s);
    EXPECT_EQ(scratch(Collective::reduce_scatter, in_place, s), 2 * s);
    for (Collective c : {Collective::broadcast, Collective::gather, Collective::scatter, Collective::allgather}) {
      EXPECT_EQ(scratch(c, in_place, s), 0u) << name(c);
    }
  }
  EXPECT_EQ(scratch(Collective::alltoall, true, s), s / 2);
  EXPECT_EQ(scratch(Collective::alltoall, false, s), 0u);
  EXPECT_EQ(scratch(Collective::sendrecv, true, s), s);
  EXPECT_EQ(scratch(Collective::sendrecv, false, s), 0u);
  EXPECT_EQ(scratch(Collective::reduce, false, UINT64_MAX / 2 + 1), UINT64_MAX);
  for (Collective c : all_collectives()) EXPECT_EQ(mpi::mpi_collective(c).id, c) << name(c);
}

// What MPI promises for broadcast, and nothing more: every rank ends with the root's data, and the root's buffer is
// untouched. Out of place, the root broadcasts from its send buffer, so its receive buffer is never written (no
// copy inside the timed call), and verification looks at the send buffer there.
TEST(MPICollectives, OutOfPlaceBroadcastCopiesNothingOnTheRootAndVerifiesWhatMPIPromises) {
  Communicator& comm = world().communicator(world_partition(mpitest::connector().size()), test_step());
  const int root = comm.size() - 1;
  const bool is_root = comm.rank() == root;
  constexpr std::size_t kCount = 257;
  constexpr float kUnwritten = -12345.0f;
  std::vector<float> send(kCount, kUnwritten), recv(kCount, kUnwritten);
  ExternalBuffer send_buffer(send.data(), kCount * sizeof(float));
  ExternalBuffer recv_buffer(recv.data(), kCount * sizeof(float));
  const CollectiveCall call{
      Collective::broadcast, {&send_buffer, 0}, {&recv_buffer, 0}, kCount, DType::float32, ReduceOp::sum, root};
  const auto pattern = make_pattern(Collective::broadcast, ReduceOp::sum, DType::float32, comm.size());
  Device& device = world().device();
  device.fill(call.send, kCount, DType::float32, FillSpec{pattern, comm.rank()});
  const std::vector<float> sent = send;
  comm.run(call, test_step());

  const CheckSpec spec{pattern, ReduceOp::sum, Collective::broadcast, kCount, root, comm.rank()};
  if (is_root) {
    EXPECT_EQ(send, sent) << "the root's send buffer must be untouched";
    EXPECT_EQ(recv, std::vector<float>(kCount, kUnwritten)) << "the root's receive buffer must not be written";
    EXPECT_EQ(comm.result_at(call).data(), send.data());
  } else {
    EXPECT_EQ(comm.result_at(call).data(), recv.data());
    EXPECT_NE(recv, std::vector<float>(kCount, kUnwritten));
  }
  EXPECT_EQ(device.count_wrong(comm.result_at(call), DType::float32, spec), 0u);

  // Verification sees a change to the root's buffer, and a wrong element anywhere else.
  (is_root ? send : recv)[100] += 1.0f;
  EXPECT_EQ(device.count_wrong(comm.result_at(call), DType::float32, spec), 1u);
}

TEST(MPICollectives, FusedAllreduceOfATensorList) {
  Communicator& comm = world().communicator(world_partition(mpitest::connector().size()), test_step());
  const int n = comm.size();
  const float me = static_cast<float>(comm.rank());
  std::vector<std::vector<float>> tensors = {std::vector<float>(3, me), std::vector<float>(1000, me + 1),
                                             std::vector<float>(1, 2 * me)};
  std::vector<ExternalBuffer> buffers;
  buffers.reserve(tensors.size());
  std::vector<TensorRef> refs;
  for (auto& t : tensors) {
    buffers.emplace_back(t.data(), t.size() * sizeof(float));
    refs.push_back({{&buffers.back(), 0}, t.size()});
  }
  const float ranks_sum = static_cast<float>(n * (n - 1) / 2);
  FusedAllreduce fused(comm, world().device());
  fused.run(refs, DType::float32, ReduceOp::sum, kTimeout, test_step());
  EXPECT_EQ(tensors[0], std::vector<float>(3, ranks_sum));
  EXPECT_EQ(tensors[1], std::vector<float>(1000, ranks_sum + static_cast<float>(n)));
  EXPECT_EQ(tensors[2], std::vector<float>(1, 2 * ranks_sum));

  // Asynchronous form: the tensors hold the result once waited for.
  for (auto& t : tensors) std::fill(t.begin(), t.end(), 1.0f);
  auto work = fused.start(refs, DType::float32, ReduceOp::sum);
  work->wait(kTimeout);
  for (const auto& t : tensors) EXPECT_EQ(t, std::vector<float>(t.size(), static_cast<float>(n)));
}

TEST(MPICollectives, WaitTimesOutWhenAPeerNeverJoins) {
  Communicator& comm = world().communicator(world_partition(mpitest::connector().size()), test_step());
  if (comm.size() < 2) GTEST_SKIP() << "needs a second rank that stays away";
  std::vector<float> data(16, 1.0f);
  ExternalBuffer buffer(data.data(), data.size() * sizeof(float));
  const CollectiveCall call{
      Collective::allreduce, {&buffer, 0}, {&buffer, 0}, data.size(), DType::float32, ReduceOp::sum, 0};
  if (comm.rank() == 0) {
    auto work = comm.start(call);
    try {
      work->wait(Seconds(0.2));
      ADD_FAILURE() << "the wait should have timed out";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::timeout);
      EXPECT_NE(std::string(e.what()).find("allreduce"), std::string::npos) << e.what();
    }
    mpitest::connector().barrier(test_step());  // now let the others join, so the call completes
    work->wait(kTimeout);
  } else {
    mpitest::connector().barrier(test_step());
    comm.start(call)->wait(kTimeout);
  }
  EXPECT_EQ(data, std::vector<float>(16, static_cast<float>(comm.size())));
}

// The real communicator, with a log of the collective calls (count, send and receive offsets) and the waits.
class LoggedCalls final : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
  std::vector<std::string> log;

  void run(const CollectiveCall& call, const ArmedStep& step) override {
    log.push_back(fmt::format("{} at {}/{}", call.count, call.send.byte_offset, call.recv.byte_offset));
    real().run(call, step);
  }
  void synchronize(Seconds timeout) override {
    log.push_back("wait");
    real().synchronize(timeout);
  }
};

// nccl-tests' warm-up of a sweep: -w operations at each size, at the rotating positions nccl-tests gives them, each
// size waited for before the next; -w 0 runs nothing.
TEST(MPICollectives, TheSweepsWarmUpRunsEachSizeAtItsPositionsThenWaits) {
  LoggedCalls comm(world().communicator(world_partition(mpitest::connector().size()), test_step()));
  auto send = world().device().allocate(4096);
  auto recv = world().device().allocate(4096);
  std::vector<CaseSetup> setups;
  for (std::size_t count : {64, 128, 256}) {  // 256, 512 and 1024 bytes of float32: 16, 8 and 4 positions
    CaseSetup s;
    s.call = {Collective::allreduce, {send.get(), 0}, {recv.get(), 0}, count, DType::float32, ReduceOp::sum, 0};
    s.size = case_geometry(Collective::allreduce, DType::float32, count * 4, comm.size(), comm.rank());
    s.recv_bytes = count * 4;
    s.poison_at = s.call.recv;
    s.pattern = make_pattern(Collective::allreduce, ReduceOp::sum, DType::float32, comm.size());
    s.label = fmt::format("allreduce {} elements", count);
    setups.push_back(s);
  }
  Watchdog watchdog(60, [](const std::string& step, StepKind, double) { ADD_FAILURE() << "overdue: " << step; });
  SweepPlan plan;
  plan.warmup_iters = 5;
  warm_up_sizes(comm, plan, watchdog, setups);
  EXPECT_EQ(comm.log,
            (std::vector<std::string>{"64 at 0/0", "64 at 256/256", "64 at 512/512", "64 at 768/768", "64 at 1024/1024",
                                      "wait", "128 at 0/0", "128 at 512/512", "128 at 1024/1024", "128 at 1536/1536",
                                      "128 at 2048/2048", "wait", "256 at 0/0", "256 at 1024/1024", "256 at 2048/2048",
                                      "256 at 3072/3072", "256 at 0/0", "wait"}));
  comm.log.clear();
  plan.warmup_iters = 0;
  warm_up_sizes(comm, plan, watchdog, setups);
  EXPECT_TRUE(comm.log.empty());
}

// Point to point with any peer: bytes that name their sender, the distance k and the message.
std::vector<std::uint8_t> p2p_pattern(int sender, int k, int message, std::size_t bytes) {
  std::vector<std::uint8_t> out(bytes);
  for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<std::uint8_t>(sender * 37 + k * 11 + message * 5 + i);
  return out;
}

std::size_t p2p_bytes(int sender, int k) { return 1000 + static_cast<std::size_t>(37 * sender + 13 * k); }

TEST(MPIPointToPoint, EveryRankExchangesWithEveryDistance) {
  Communicator& comm = world().communicator(world_partition(mpitest::connector().size()), test_step());
  const int n = comm.size();
  const int me = comm.rank();
  if (n < 2) GTEST_SKIP() << "needs a peer";
  for (int k = 1; k < n; ++k) {
    const int to = (me + k) % n;
    const int from = (me - k + n) % n;
    auto out = p2p_pattern(me, k, 0, p2p_bytes(me, k));
    std::vector<std::uint8_t> in(p2p_bytes(from, k), 0);
    ExternalBuffer out_buffer(out.data(), out.size());
    ExternalBuffer in_buffer(in.data(), in.size());
    auto received = comm.start_recv({&in_buffer, 0}, in.size(), from);
    auto sent = comm.start_send({&out_buffer, 0}, out.size(), to);
    sent->wait(kTimeout);
    received->wait(kTimeout);
    EXPECT_EQ(in, p2p_pattern(from, k, 0, in.size())) << "rank " << me << " from " << from << " at distance " << k;
  }
}

// Several messages of different sizes to one peer, all sends posted before any receive: they arrive in the order
// sent (each receive is posted for its own message's size, and each message's bytes name it).
TEST(MPIPointToPoint, MessagesToOnePeerArriveInOrder) {
  Communicator& comm = world().communicator(world_partition(mpitest::connector().size()), test_step());
  const int n = comm.size();
  const int me = comm.rank();
  const int next = (me + 1) % n;  // itself when alone
  const int prev = (me + n - 1) % n;
  const std::vector<std::size_t> sizes = {1, 1000, 70000, 5, 300000, 0, 64};
  std::vector<std::vector<std::uint8_t>> out, in;
  std::vector<ExternalBuffer> buffers;
  buffers.reserve(2 * sizes.size());
  std::vector<std::unique_ptr<Work>> works;
  for (std::size_t m = 0; m < sizes.size(); ++m) {
    out.push_back(p2p_pattern(me, 1, static_cast<int>(m), sizes[m]));
    in.emplace_back(sizes[m], 0);
  }
  for (std::size_t m = 0; m < sizes.size(); ++m) {
    buffers.emplace_back(out[m].data(), sizes[m]);
    works.push_back(comm.start_send({&buffers.back(), 0}, sizes[m], next));
  }
  for (std::size_t m = 0; m < sizes.size(); ++m) {
    buffers.emplace_back(in[m].data(), sizes[m]);
    works.push_back(comm.start_recv({&buffers.back(), 0}, sizes[m], prev));
  }
  for (auto& work : works) work->wait(kTimeout);
  for (std::size_t m = 0; m < sizes.size(); ++m) {
    EXPECT_EQ(in[m], p2p_pattern(prev, 1, static_cast<int>(m), sizes[m])) << "message " << m;
  }
}

TEST(MPIPointToPoint, WaitNamesTheCallAndPeerWhenThePeerNeverSends) {
  Communicator& comm = world().communicator(world_partition(mpitest::connector().size()), test_step());
  if (comm.size() < 2) GTEST_SKIP() << "needs a second rank that stays away";
  std::vector<std::uint8_t> data(16, 0);
  ExternalBuffer buffer(data.data(), data.size());
  if (comm.rank() == 0) {
    auto work = comm.start_recv({&buffer, 0}, data.size(), 1);
    try {
      work->wait(Seconds(0.2));
      ADD_FAILURE() << "the wait should have timed out";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::timeout);
      EXPECT_NE(std::string(e.what()).find("receive of 16 bytes from group rank 1"), std::string::npos) << e.what();
    }
    mpitest::connector().barrier(test_step());  // now rank 1 sends, so the call completes
    work->wait(kTimeout);
    EXPECT_EQ(data, std::vector<std::uint8_t>(16, 7));
  } else {
    mpitest::connector().barrier(test_step());
    if (comm.rank() == 1) {
      std::fill(data.begin(), data.end(), std::uint8_t{7});
      comm.start_send({&buffer, 0}, data.size(), 0)->wait(kTimeout);
    }
  }
}

// A buffer of two parts, as a process driving two GPUs would have.
class TwoParts final : public Buffer {
 public:
  std::size_t bytes() const override { return 8; }
  int parts() const override { return 2; }
  void* data(int part) override { return bytes_[part].data(); }

 private:
  std::array<std::array<std::byte, 8>, 2> bytes_{};
};

TEST(MPIPointToPoint, RefusesAMultiPartBufferAndAPeerOutsideTheGroup) {
  Communicator& comm = world().communicator(world_partition(mpitest::connector().size()), test_step());
  TwoParts two;
  std::array<std::byte, 8> one{};
  ExternalBuffer single(one.data(), one.size());
  const auto code_of = [](auto&& call) {
    try {
      call();
    } catch (const Error& e) {
      return e.code();
    }
    return ExitCode::ok;
  };
  EXPECT_EQ(code_of([&] { comm.start_send({&two, 0}, 8, 0); }), ExitCode::usage);
  EXPECT_EQ(code_of([&] { comm.start_recv({&two, 0}, 8, 0); }), ExitCode::usage);
  EXPECT_EQ(code_of([&] { comm.start_send({&single, 0}, 8, comm.size()); }), ExitCode::usage);
  EXPECT_EQ(code_of([&] { comm.start_recv({&single, 0}, 8, -1); }), ExitCode::usage);
}

}  // namespace
}  // namespace distbench::collective
