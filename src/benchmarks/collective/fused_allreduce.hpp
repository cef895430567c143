// All-reduce of a list of tensors fused into one buffer: one collective instead of many small ones (data
// parallelism's gradient buckets).
#pragma once

#include "core/comm/communicator.hpp"
#include "core/device/device.hpp"

#include <memory>
#include <span>

namespace distbench::collective {

struct TensorRef {
  BufferRef data;
  std::size_t count = 0;
};

class FusedAllreduce {
 public:
  FusedAllreduce(Communicator& comm, Device& device) : comm_(comm), device_(device) {}

  // Reduces every tensor in place, through one all-reduce of their concatenation. Blocking.
  void run(std::span<const TensorRef> tensors, DType dtype, ReduceOp op, Seconds timeout, const ArmedStep& step);
  // Starts the fused all-reduce; the tensors hold the result once the returned work is waited for.
  std::unique_ptr<Work> start(std::span<const TensorRef> tensors, DType dtype, ReduceOp op);

  // The three parts of run(), for timing them one by one: copy the tensors into the fusion buffer (returns the
  // all-reduce of it, in place), and copy the result back into the tensors.
  CollectiveCall pack(std::span<const TensorRef> tensors, DType dtype, ReduceOp op);
  void unpack(std::span<const TensorRef> tensors, DType dtype);

 private:
  Communicator& comm_;
  Device& device_;
  std::unique_ptr<Buffer> fusion_;  // grown to the largest bucket seen
};

}  // namespace distbench::collective
