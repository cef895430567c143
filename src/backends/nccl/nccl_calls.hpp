// One collective call as NCCL calls on one GPU (one NCCL rank): the NCCL collectives where NCCL has them, grouped
// ncclSend/ncclRecv for the sendrecv ring (send to rank+1, receive from rank-1) and, before NCCL 2.28, for alltoall,
// gather and scatter. In-place calls pass NCCL the overlapping pointers that buffer_shape() describes, which is what
// NCCL's own in-place convention is; alltoall and sendrecv, whose exchanges would read what they overwrite, send
// from a staged copy of the input instead.
#pragma once

#include "core/comm/communicator.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>

namespace distbench::nccl {

struct PartCall {
  const void* send = nullptr;  // the staged copy when the call needs one
  void* recv = nullptr;
  int rank = 0;  // NCCL rank of this part
  int nranks = 1;
};

// Whether NCCL runs `c` in place from a staged copy of the input (alltoall, sendrecv).
bool copies_in_place(Collective c);

// Bytes of input that `call` must stage before NCCL runs it (0 when none): in-place alltoall and sendrecv.
std::size_t staging_bytes(const CollectiveCall& call, const void* send, const void* recv, int nranks);

// Enqueues the NCCL calls of `call` for one part. Returns NCCL's status (ncclInProgress on non-blocking
// communicators); the caller settles it. Must run between ncclGroupStart and ncclGroupEnd when the process drives
// several GPUs.
ncclResult_t enqueue_part(const CollectiveCall& call, const PartCall& part, ncclComm_t comm, cudaStream_t stream);

// The worse of two NCCL statuses: an error over ncclInProgress over ncclSuccess.
ncclResult_t worse(ncclResult_t a, ncclResult_t b);

}  // namespace distbench::nccl
