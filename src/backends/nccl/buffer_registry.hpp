// User-buffer registration (-R): device buffers allocated with ncclMemAlloc are registered with each communicator
// that uses them (ncclCommRegister, a local call), once, and deregistered when either side goes away: a buffer that
// is freed leaves every communicator, a communicator that is destroyed or aborted takes its registrations with it.
// On a non-blocking communicator both calls may answer ncclInProgress; the registry waits (bounded) until the
// communicator has settled, as NCCL requires before its next call.
#pragma once

#include "core/comm/communicator.hpp"

#include <nccl.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

namespace distbench::nccl {

class BufferRegistry {
 public:
  BufferRegistry() = default;
  BufferRegistry(const BufferRegistry&) = delete;
  BufferRegistry& operator=(const BufferRegistry&) = delete;

  // Registers [base, base + bytes) with `comm` unless it already is. Throws Error(failure) on NCCL errors and
  // Error(timeout) when the communicator does not settle within `timeout`.
  void ensure(ncclComm_t comm, void* base, std::size_t bytes, Seconds timeout);
  // The allocation at `base` is about to be freed: deregister it from every communicator.
  void forget_buffer(void* base) noexcept;
  // `comm` is about to be destroyed (`deregister`: release its registrations first) or was aborted (NCCL released
  // them with it).
  void forget_comm(ncclComm_t comm, bool deregister) noexcept;

 private:
  std::mutex mutex_;
  std::map<std::pair<ncclComm_t, void*>, void*> handles_;  // (communicator, base) -> NCCL's handle
};

}  // namespace distbench::nccl
