// One case's sizes, worked out once: the size asked for, the call's count, its buffers in elements and in bytes, and
// the size S the report gives it. Every later step reads them from here instead of converting again.
#pragma once

#include "core/device/collective.hpp"
#include "core/device/dtype.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace distbench::collective {

struct CaseGeometry {
  std::uint64_t asked = 0;    // bytes, as the sweep asked for them (-b .. -e): the label's and the peers' counts' size
  std::size_t elem = 0;       // bytes per element
  std::size_t count = 0;      // the call's count (0: too small to give every rank an element)
  BufferShape shape{};        // elements: send, receive, and this rank's in-place offsets
  std::uint64_t message = 0;  // bytes: S by nccl-tests' convention, what the report and the bandwidths go by

  std::size_t send_bytes() const { return shape.send_count * elem; }
  std::size_t recv_bytes() const { return shape.recv_count * elem; }
  // In place, one buffer holds both (max of the two).
  std::size_t in_place_bytes() const { return std::max(shape.send_count, shape.recv_count) * elem; }
};

// The geometry of `asked` bytes of `dtype` for `collective` at `nranks` ranks, as rank `rank` of the group holds it
// (only the in-place offsets depend on the rank).
CaseGeometry case_geometry(Collective collective, DType dtype, std::uint64_t asked, int nranks, int rank);

}  // namespace distbench::collective
