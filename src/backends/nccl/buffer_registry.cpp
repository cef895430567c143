#include "backends/nccl/buffer_registry.hpp"

#include "backends/nccl/cuda_check.hpp"
#include "core/error.hpp"
#include "core/sys/deadline.hpp"

#include <fmt/core.h>

#include <chrono>
#include <thread>

namespace distbench::nccl {
namespace {

// Waits until `comm` leaves ncclInProgress; returns its final state (ncclInProgress when `timeout` passed first).
ncclResult_t settled_state(ncclComm_t comm, ncclResult_t status, Seconds timeout) {
  const auto deadline = deadline_after(timeout.count());
  while (status == ncclInProgress && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(20));
    if (ncclCommGetAsyncError(comm, &status) != ncclSuccess) return ncclInternalError;
  }
  return status;
}

constexpr Seconds kReleaseTimeout{10.0};

}  // namespace

void BufferRegistry::ensure(ncclComm_t comm, void* base, std::size_t bytes, Seconds timeout) {
  std::lock_guard lock(mutex_);
  const auto key = std::make_pair(comm, base);
  if (bytes == 0 || handles_.contains(key)) return;
  void* handle = nullptr;
  const ncclResult_t status = settled_state(comm, ncclCommRegister(comm, base, bytes, &handle), timeout);
  if (status == ncclInProgress) {
    throw Error(ExitCode::timeout, fmt::format("ncclCommRegister (-R) of {} bytes did not complete within {:.3g} s",
                                               bytes, timeout.count()));
  }
  check_nccl(status, "ncclCommRegister (-R)", comm);
  handles_.emplace(key, handle);
}

void BufferRegistry::forget_buffer(void* base) noexcept {
  std::lock_guard lock(mutex_);
  for (auto it = handles_.begin(); it != handles_.end();) {
    if (it->first.second == base) {
      // nothing to do about a failure while freeing
      settled_state(it->first.first, ncclCommDeregister(it->first.first, it->second), kReleaseTimeout);
      it = handles_.erase(it);
    } else {
      ++it;
    }
  }
}

void BufferRegistry::forget_comm(ncclComm_t comm, bool deregister) noexcept {
  std::lock_guard lock(mutex_);
  for (auto it = handles_.begin(); it != handles_.end();) {
    if (it->first.first == comm) {
      if (deregister) settled_state(comm, ncclCommDeregister(comm, it->second), kReleaseTimeout);
      it = handles_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace distbench::nccl
