#include "backends/nccl/nccl_calls.hpp"

#include "backends/nccl/nccl_types.hpp"

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

}  // namespace

ncclResult_t worse(ncclResult_t a, ncclResult_t b) {
  const auto is_error = [](ncclResult_t r) { return r != ncclSuccess && r != ncclInProgress; };
  if (is_error(a)) return a;
  if (is_error(b)) return b;
  return (a == ncclInProgress || b == ncclInProgress) ? ncclInProgress : ncclSuccess;
}

std::size_t staging_bytes(const CollectiveCall& call, const void* send, const void* recv, int nranks) {
  std::size_t bytes = call.count * size_of(call.dtype);
  if (call.collective == Collective::alltoall) {
    bytes *= static_cast<std::size_t>(nranks);
  } else if (call.collective != Collective::sendrecv) {
    return 0;
  }
  return bytes != 0 && overlaps(send, recv, bytes) ? bytes : 0;
}

ncclResult_t enqueue_part(const CollectiveCall& call, const PartCall& p, ncclComm_t comm, cudaStream_t stream) {
  const ncclDataType_t type = nccl_dtype(call.dtype);
  const ncclRedOp_t op = nccl_op(call.op).value_or(ncclSum);  // bitwise operators are refused before this point
  const std::size_t n = call.count;
  switch (call.collective) {
    case Collective::allreduce: return ncclAllReduce(p.send, p.recv, n, type, op, comm, stream);
    case Collective::reduce_scatter: return ncclReduceScatter(p.send, p.recv, n, type, op, comm, stream);
    case Collective::allgather: return ncclAllGather(p.send, p.recv, n, type, comm, stream);
    case Collective::broadcast: return ncclBroadcast(p.send, p.recv, n, type, call.root, comm, stream);
    case Collective::reduce: return ncclReduce(p.send, p.recv, n, type, op, call.root, comm, stream);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    case Collective::alltoall: return ncclAlltoAll(p.send, p.recv, n, type, comm, stream);
    case Collective::gather: return ncclGather(p.send, p.recv, n, type, call.root, comm, stream);
    case Collective::scatter: return ncclScatter(p.send, p.recv, n, type, call.root, comm, stream);
#else
    case Collective::alltoall: return alltoall_p2p(call, p, comm, stream);
    case Collective::gather: return gather_p2p(call, p, comm, stream);
    case Collective::scatter: return scatter_p2p(call, p, comm, stream);
#endif
    case Collective::sendrecv: return sendrecv_ring(call, p, comm, stream);
  }
  return ncclInvalidArgument;
}

}  // namespace distbench::nccl
