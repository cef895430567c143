// TorchShard's four operations on a 2-D tensor over one model-parallel group, forward and backward, on the device's
// memory. Each (operation, pass) is one of four primitives:
//   slice      scatter forward, gather backward: keep this rank's block along the dim (a local copy)
//   allgather  gather forward, scatter backward: every rank's block, concatenated along the dim (along columns the
//              gathered blocks are rearranged into rows: a local copy after the collective)
//   allreduce  reduce forward, copy backward: the sum over the group, in place
//   identity   reduce backward, copy forward: nothing
#pragma once

#include "benchmarks/tp/shard.hpp"
#include "core/comm/communicator.hpp"
#include "core/device/collective.hpp"
#include "core/device/dense_math.hpp"
#include "core/device/device.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

namespace distbench::tp {

enum class Op { scatter, gather, reduce, copy };
enum class Pass { forward, backward };
enum class Primitive { slice, allgather, allreduce, identity };

std::string_view name(Op op);
std::string_view name(Pass pass);
std::string_view name(Primitive p);
std::optional<Op> parse_op(std::string_view text);
Primitive primitive(Op op, Pass pass);
// Whether the primitive depends on the dim (slice, allgather) or not (allreduce, identity).
bool along_dim(Primitive p);

// The collective a primitive calls (allgather, allreduce); nullopt for the local ones (slice, identity). Its bus
// factor is the collective table's (core/device/collective.hpp).
std::optional<Collective> collective_of(Primitive p);

// One rank's buffers for one tensor layout and type, and the primitives over its group's communicator.
class OpRunner {
 public:
  OpRunner(Communicator& group, Device& device, DenseMath& math, const ShardLayout& layout, DType dtype);

  // Writes the inputs `p` reads (exact small integers: every type holds them, and sums, exactly).
  void prepare(Primitive p);
  // Runs `p` once; complete on the device when it returns. Collective waits bounded by `timeout`.
  void run(Primitive p, Seconds timeout);
  // After prepare(p) and one run(p): the output's elements that differ from the non-parallel result.
  std::uint64_t count_wrong(Primitive p);

 private:
  std::size_t element_bytes() const { return size_of(dtype_); }
  void upload(Buffer& to, const std::vector<float>& values);
  std::vector<float> download(Buffer& from, std::size_t count);

  Communicator& group_;
  Device& device_;
  DenseMath& math_;
  ShardLayout layout_;
  DType dtype_;
  int me_;  // rank in the group
  std::unique_ptr<Buffer> full_, shard_, staging_;
};

// The input values: element i of the full tensor (replicated) and each group rank g's summand of element i.
float full_value(std::size_t i);
float summand(std::size_t i, int g);

}  // namespace distbench::tp
