// nccl-tests' rotation of buffer positions (--timing nccl-tests): every operation of a block at a fresh position
// inside the buffers allocated for the sweep's largest case, never past their end.
#include "benchmarks/collective/rotation.hpp"

#include "core/device/host_device.hpp"

#include <gtest/gtest.h>

namespace distbench::collective {
namespace {

CaseSetup out_of_place(Buffer& send, Buffer& recv, Collective c, std::size_t count, int nranks) {
  CaseSetup s;
  s.size = case_geometry(c, DType::float32, message_elements(c, count, nranks) * 4, nranks, 0);
  s.call.collective = c;
  s.call.count = s.size.count;
  s.call.dtype = DType::float32;
  s.call.send = {&send, 0};
  s.call.recv = {&recv, 0};
  s.recv_bytes = s.size.recv_bytes();
  s.poison_at = s.call.recv;
  return s;
}

TEST(Rotation, EachOperationOfABlockMovesOneFootprintOnUntilTheBuffersEnd) {
  HostDevice device;
  auto send = device.allocate(1 << 20), recv = device.allocate(1 << 20);
  // allreduce of 64 KiB in buffers of 1 MiB: 16 positions, a block of 20 uses all 16.
  const auto calls = rotated_calls(out_of_place(*send, *recv, Collective::allreduce, 16384, 2), 20);
  ASSERT_EQ(calls.size(), 16u);
  for (std::size_t k = 0; k < calls.size(); ++k) {
    EXPECT_EQ(calls[k].send.byte_offset, k * 65536);
    EXPECT_EQ(calls[k].recv.byte_offset, k * 65536);
    EXPECT_EQ(calls[k].count, 16384u);
  }
  // A block shorter than the positions uses as many as it has operations.
  EXPECT_EQ(rotated_calls(out_of_place(*send, *recv, Collective::allreduce, 16384, 2), 5).size(), 5u);
  // The largest case has one position, as in nccl-tests.
  EXPECT_EQ(rotated_calls(out_of_place(*send, *recv, Collective::allreduce, 262144, 2), 20).size(), 1u);
}

TEST(Rotation, CudaGraphsReplayTheCapturedCallsSoABlockRotatesThroughThoseOnly) {
  SweepPlan plan;
  plan.block_iters = 20;
  EXPECT_EQ(distinct_calls_per_block(plan), 20);
  plan.backend_options.agg_iters = 4;  // -m 4: 80 calls, each its own position
  EXPECT_EQ(distinct_calls_per_block(plan), 80);
  // -G 10 replays the captured 80 calls ten times: 800 operations at 80 positions, never 800 (the rest would never
  // be written, and the check of every position would count them wrong).
  plan.backend_options.graph_launches = 10;
  EXPECT_EQ(distinct_calls_per_block(plan), 80);
}

TEST(Rotation, EachBufferMovesByItsOwnPartAndTheTighterOneDecides) {
  HostDevice device;
  // allgather at 4 ranks: each sends count, receives 4 x count; buffers for the largest case (64 KiB sent).
  auto send = device.allocate(65536), recv = device.allocate(4 * 65536);
  const auto calls = rotated_calls(out_of_place(*send, *recv, Collective::allgather, 1024, 4), 100);
  ASSERT_EQ(calls.size(), 16u);  // 64 KiB / 4 KiB sent per call
  EXPECT_EQ(calls[3].send.byte_offset, 3u * 4096);
  EXPECT_EQ(calls[3].recv.byte_offset, 3u * 16384);
  const auto& last = calls.back();
  EXPECT_LE(last.send.byte_offset + 4096, send->bytes());
  EXPECT_LE(last.recv.byte_offset + 16384, recv->bytes());
}

TEST(Rotation, InPlaceCallsKeepTheirPairAndMoveTogether) {
  HostDevice device;
  auto buffer = device.allocate(4 * 65536);
  // reduce-scatter in place at 4 ranks, rank 0: sends from the buffer's start, receives its block there.
  CaseSetup s;
  s.size = case_geometry(Collective::reduce_scatter, DType::float32, 4 * 1024 * 4, 4, 1);
  const BufferShape shape = s.size.shape;
  s.call.collective = Collective::reduce_scatter;
  s.call.count = s.size.count;
  s.call.send = {buffer.get(), shape.in_place_send_offset * 4};
  s.call.recv = {buffer.get(), shape.in_place_recv_offset * 4};
  s.poison_at = {buffer.get(), 0};
  s.recv_bytes = s.size.in_place_bytes();
  const auto calls = rotated_calls(s, 20);
  ASSERT_EQ(calls.size(), 16u);  // 256 KiB / 16 KiB
  for (std::size_t k = 0; k < calls.size(); ++k) {
    EXPECT_EQ(calls[k].recv.byte_offset - calls[k].send.byte_offset, s.call.recv.byte_offset - s.call.send.byte_offset);
    EXPECT_EQ(calls[k].send.byte_offset, s.call.send.byte_offset + k * s.recv_bytes);
  }
}

}  // namespace
}  // namespace distbench::collective
