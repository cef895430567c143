// One collective case on an NCCL communicator, set up as the runner sets it up (buffer_shape's in-place offsets,
// poisoned result, pattern input) and checked on the GPU; shared by the single-process and the mpirun GPU tests.
#pragma once

#include "core/comm/backend.hpp"
#include "core/error.hpp"
#include "tests/support/test_step.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace distbench::gputest {

inline constexpr Seconds kTimeout{60.0};

struct Case {
  std::unique_ptr<Buffer> send;
  std::unique_ptr<Buffer> recv;
  CollectiveCall call;
  PatternParams pattern;
};

inline Case make_case(Backend& backend, const Communicator& comm, Collective c, DType t, ReduceOp op,
                      Placement placement, std::size_t count, int root) {
  Device& device = backend.device();
  const auto shape = buffer_shape(c, count, comm.size(), comm.rank());
  const std::size_t elem = size_of(t);
  Case k;
  k.send = device.allocate(shape.send_count * elem);
  k.recv = device.allocate(std::max(shape.send_count, shape.recv_count) * elem);
  k.call = {c, {k.send.get(), 0}, {k.recv.get(), 0}, count, t, op, root};
  if (placement == Placement::in_place) {
    k.call.send = {k.recv.get(), shape.in_place_send_offset * elem};
    k.call.recv = {k.recv.get(), shape.in_place_recv_offset * elem};
  }
  k.pattern = make_pattern(c, op, t, comm.size());
  device.poison({k.recv.get(), 0}, k.recv->bytes());
  device.fill(k.call.send, shape.send_count, t, FillSpec{k.pattern, comm.rank()});
  return k;
}

inline std::uint64_t count_wrong(Backend& backend, const Communicator& comm, const Case& k) {
  const auto& c = k.call;
  return backend.device().count_wrong(c.recv, c.dtype,
                                      CheckSpec{k.pattern, c.op, c.collective, c.count, c.root, comm.rank()});
}

// In-place calls whose positions differ per rank cannot reach several GPUs through one BufferRef offset.
inline bool per_rank_in_place(Collective c) {
  return c == Collective::reduce_scatter || c == Collective::allgather || c == Collective::gather ||
         c == Collective::scatter;
}

// Every dtype x operator x placement of `c` at a few counts: #wrong must be 0 on this process's GPUs.
inline void check_every_case(Backend& backend, Communicator& comm, Collective c) {
  const int root = comm.size() - 1;  // not rank 0, to catch a root that is ignored
  const std::vector<ReduceOp> ops = is_reduction(c)
                                        ? std::vector<ReduceOp>(all_reduce_ops().begin(), all_reduce_ops().end())
                                        : std::vector<ReduceOp>{ReduceOp::sum};
  for (DType t : all_dtypes()) {
    for (ReduceOp op : ops) {
      if (!defined_for(op, t)) continue;
      if (const auto reason = comm.unsupported(c, t, op)) {
        EXPECT_TRUE(is_bitwise(op)) << *reason;
        continue;
      }
      for (Placement placement : {Placement::out_of_place, Placement::in_place}) {
        for (std::size_t count : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{1} << 18}) {
          const std::string label = fmt::format("{} {} {} {} count {} on group rank {} of {}", name(c), name(t),
                                                name(op), name(placement), count, comm.rank(), comm.size());
          Case k = make_case(backend, comm, c, t, op, placement, count, root);
          if (placement == Placement::in_place && comm.local_parts() > 1 && per_rank_in_place(c)) {
            EXPECT_THROW(comm.run(k.call, test_step()), Error) << label;
            continue;
          }
          comm.run(k.call, test_step());
          comm.synchronize(kTimeout);
          EXPECT_EQ(count_wrong(backend, comm, k), 0u) << label;
        }
      }
    }
  }
}

}  // namespace distbench::gputest
