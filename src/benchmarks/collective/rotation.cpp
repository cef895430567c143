#include "benchmarks/collective/rotation.hpp"

#include <algorithm>
#include <cstddef>

namespace distbench::collective {
namespace {

// How many footprints of `footprint` bytes fit from `start` in a buffer of `extent` bytes (no limit for an empty one).
std::size_t fitting(std::size_t extent, std::size_t start, std::size_t footprint) {
  if (footprint == 0) return static_cast<std::size_t>(-1);
  return extent > start ? (extent - start) / footprint : 0;
}

}  // namespace

std::vector<CollectiveCall> rotated_calls(const CaseSetup& setup, int ops) {
  const CollectiveCall& call = setup.call;
  const bool in_place = call.send.buffer == call.recv.buffer;
  // In place, both positions move by the region the case uses; out of place, each buffer by its own part of it.
  const std::size_t send_step = in_place ? setup.recv_bytes : setup.size.send_bytes();
  const std::size_t recv_step = setup.recv_bytes;
  std::size_t steps = 1;
  if (call.recv.buffer != nullptr && recv_step > 0) {
    const std::size_t base = in_place ? setup.poison_at.byte_offset : call.recv.byte_offset;
    steps = fitting(call.recv.buffer->bytes(), base, recv_step);
    if (!in_place && call.send.buffer != nullptr) {
      steps = std::min(steps, fitting(call.send.buffer->bytes(), call.send.byte_offset, send_step));
    }
  }
  steps = std::clamp<std::size_t>(steps, 1, static_cast<std::size_t>(std::max(ops, 1)));
  std::vector<CollectiveCall> calls;
  calls.reserve(steps);
  for (std::size_t k = 0; k < steps; ++k) {
    CollectiveCall c = call;
    c.send = call.send.at(k * send_step);
    c.recv = call.recv.at(k * recv_step);
    calls.push_back(c);
  }
  return calls;
}

int distinct_calls_per_block(const SweepPlan& plan) {
  return plan.block_iters * std::max(1, plan.backend_options.agg_iters);
}

}  // namespace distbench::collective
