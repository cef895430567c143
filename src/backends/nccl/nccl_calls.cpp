#include "backends/nccl/nccl_calls.hpp"

#include "backends/nccl/nccl_types.hpp"

#include <array>
#include <cstdint>
#include <type_traits>

namespace distbench::nccl {
namespace {

// Pointer to element block `index` of `count` elements of `elem` bytes.
template <typename T>
T* block(T* base, std::size_t index, std::size_t count, std::size_t elem) {
  using Byte = std::conditional_t<std::is_const_v<T>, const std::byte, std::byte>;
  return reinterpret_cast<Byte*>(base) + index * count * elem;
}

// Grouped point-to-point calls: the status of the whole group.
class P2PGroup {
 public:
  P2PGroup() : status_(ncclGroupStart()) {}
  void add(ncclResult_t status) { status_ = worse(status_, status); }
  ncclResult_t end() { return worse(status_, ncclGroupEnd()); }

 private:
  ncclResult_t status_;
};

ncclResult_t sendrecv_ring(const CollectiveCall& call, const PartCall& p, ncclComm_t comm, cudaStream_t stream) {
  const ncclDataType_t type = nccl_dtype(call.dtype);
  P2PGroup group;
  group.add(ncclSend(p.send, call.count, type, (p.rank + 1) % p.nranks, comm, stream));
  group.add(ncclRecv(p.recv, call.count, type, (p.rank + p.nranks - 1) % p.nranks, comm, stream));
  return group.end();
}

[[maybe_unused]] ncclResult_t alltoall_p2p(const CollectiveCall& call, const PartCall& p, ncclComm_t comm,
                                           cudaStream_t stream) {
  const ncclDataType_t type = nccl_dtype(call.dtype);
  const std::size_t elem = size_of(call.dtype);
  P2PGroup group;
  for (int peer = 0; peer < p.nranks; ++peer) {
    const auto i = static_cast<std::size_t>(peer);
    group.add(ncclSend(block(p.send, i, call.count, elem), call.count, type, peer, comm, stream));
    group.add(ncclRecv(block(p.recv, i, call.count, elem), call.count, type, peer, comm, stream));
  }
  return group.end();
}

[[maybe_unused]] ncclResult_t gather_p2p(const CollectiveCall& call, const PartCall& p, ncclComm_t comm,
                                         cudaStream_t stream) {
  const ncclDataType_t type = nccl_dtype(call.dtype);
  const std::size_t elem = size_of(call.dtype);
  P2PGroup group;
  if (p.rank == call.root) {
    for (int peer = 0; peer < p.nranks; ++peer) {
      void* slot = block(p.recv, static_cast<std::size_t>(peer), call.count, elem);
      if (peer == p.rank) {
        if (slot != p.send) {
          group.add(ncclSend(p.send, call.count, type, peer, comm, stream));
          group.add(ncclRecv(slot, call.count, type, peer, comm, stream));
        }
      } else {
        group.add(ncclRecv(slot, call.count, type, peer, comm, stream));
      }
    }
  } else {
    group.add(ncclSend(p.send, call.count, type, call.root, comm, stream));
  }
  return group.end();
}

[[maybe_unused]] ncclResult_t scatter_p2p(const CollectiveCall& call, const PartCall& p, ncclComm_t comm,
                                          cudaStream_t stream) {
  const ncclDataType_t type = nccl_dtype(call.dtype);
  const std::size_t elem = size_of(call.dtype);
  P2PGroup group;
  if (p.rank == call.root) {
    for (int peer = 0; peer < p.nranks; ++peer) {
      const void* slot = block(p.send, static_cast<std::size_t>(peer), call.count, elem);
      if (peer == p.rank) {
        if (slot != p.recv) {
          group.add(ncclSend(slot, call.count, type, peer, comm, stream));
          group.add(ncclRecv(p.recv, call.count, type, peer, comm, stream));
        }
      } else {
        group.add(ncclSend(slot, call.count, type, peer, comm, stream));
      }
    }
  } else {
    group.add(ncclRecv(p.recv, call.count, type, call.root, comm, stream));
  }
  return group.end();
}

bool overlaps(const void* a, const void* b, std::size_t bytes) {
  const auto x = reinterpret_cast<std::uintptr_t>(a);
  const auto y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + bytes && y < x + bytes;
}

using CallRef = const CollectiveCall&;
using PartRef = const PartCall&;

// Bitwise operators are refused before a call gets here.
ncclRedOp_t op_of(CallRef call) { return nccl_op(call.op).value_or(ncclSum); }

// NCCL 2.28 has alltoall, gather and scatter of its own; before, they are grouped sends and receives.
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
ncclResult_t alltoall_call(CallRef call, PartRef p, ncclComm_t comm, cudaStream_t stream) {
  return ncclAlltoAll(p.send, p.recv, call.count, nccl_dtype(call.dtype), comm, stream);
}
ncclResult_t gather_call(CallRef call, PartRef p, ncclComm_t comm, cudaStream_t stream) {
  return ncclGather(p.send, p.recv, call.count, nccl_dtype(call.dtype), call.root, comm, stream);
}
ncclResult_t scatter_call(CallRef call, PartRef p, ncclComm_t comm, cudaStream_t stream) {
  return ncclScatter(p.send, p.recv, call.count, nccl_dtype(call.dtype), call.root, comm, stream);
}
#else
ncclResult_t alltoall_call(CallRef call, PartRef p, ncclComm_t comm, cudaStream_t stream) {
  return alltoall_p2p(call, p, comm, stream);
}
ncclResult_t gather_call(CallRef call, PartRef p, ncclComm_t comm, cudaStream_t stream) {
  return gather_p2p(call, p, comm, stream);
}
ncclResult_t scatter_call(CallRef call, PartRef p, ncclComm_t comm, cudaStream_t stream) {
  return scatter_p2p(call, p, comm, stream);
}
#endif

// What NCCL calls for each collective, one row per collective (checked complete at compile time).
struct NCCLCollective {
  Collective id;
  // In place, the call's exchanges would read what they overwrite: it runs from a staged copy of the input.
  bool copies_in_place;
  ncclResult_t (*enqueue)(CallRef call, PartRef p, ncclComm_t comm, cudaStream_t stream);
};

constexpr std::array<NCCLCollective, kCollectiveCount> kNCCLCollectives = {{
    {Collective::allreduce, false,
     [](CallRef call, PartRef p, ncclComm_t comm, cudaStream_t stream) {
       return ncclAllReduce(p.send, p.recv, call.count, nccl_dtype(call.dtype), op_of(call), comm, stream);
     }},
    {Collective::reduce_scatter, false,
     [](CallRef call, PartRef p, ncclComm_t comm, cudaStream_t stream) {
       return ncclReduceScatter(p.send, p.recv, call.count, nccl_dtype(call.dtype), op_of(call), comm, stream);
     }},
    {Collective::allgather, false,
     [](CallRef call, PartRef p, ncclComm_t comm, cudaStream_t stream) {
       return ncclAllGather(p.send, p.recv, call.count, nccl_dtype(call.dtype), comm, stream);
     }},
    {Collective::broadcast, false,
     [](CallRef call, PartRef p, ncclComm_t comm, cudaStream_t stream) {
       return ncclBroadcast(p.send, p.recv, call.count, nccl_dtype(call.dtype), call.root, comm, stream);
     }},
    {Collective::reduce, false,
     [](CallRef call, PartRef p, ncclComm_t comm, cudaStream_t stream) {
       return ncclReduce(p.send, p.recv, call.count, nccl_dtype(call.dtype), op_of(call), call.root, comm, stream);
     }},
    {Collective::alltoall, true, alltoall_call},
    {Collective::gather, false, gather_call},
    {Collective::scatter, false, scatter_call},
    {Collective::sendrecv, true, sendrecv_ring},
}};
static_assert(one_row_per_collective(kNCCLCollectives),
              "kNCCLCollectives must list every collective in the order of enum Collective");

const NCCLCollective& nccl_collective(Collective c) { return kNCCLCollectives[static_cast<std::size_t>(c)]; }

}  // namespace

ncclResult_t worse(ncclResult_t a, ncclResult_t b) {
  const auto is_error = [](ncclResult_t r) { return r != ncclSuccess && r != ncclInProgress; };
  if (is_error(a)) return a;
  if (is_error(b)) return b;
  return (a == ncclInProgress || b == ncclInProgress) ? ncclInProgress : ncclSuccess;
}

bool copies_in_place(Collective c) { return nccl_collective(c).copies_in_place; }

std::size_t staging_bytes(const CollectiveCall& call, const void* send, const void* recv, int nranks) {
  if (!copies_in_place(call.collective)) return 0;
  const BufferShape shape = buffer_shape(call.collective, call.count, nranks, 0);
  const std::size_t bytes = shape.send_count * size_of(call.dtype);
  return bytes != 0 && overlaps(send, recv, bytes) ? bytes : 0;
}

ncclResult_t enqueue_part(const CollectiveCall& call, const PartCall& p, ncclComm_t comm, cudaStream_t stream) {
  return nccl_collective(call.collective).enqueue(call, p, comm, stream);
}

}  // namespace distbench::nccl
