// CUDA and NCCL status codes as distbench::Error: the call's name plus the library's own text, thrown where the
// call failed. Also the version formats both libraries use, and a guard for the current CUDA device.
#pragma once

#include "core/error.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>
#include <string_view>

namespace distbench::nccl {

// "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version"
std::string cuda_error_text(cudaError_t status);
// "ncclUnhandledCudaError: unhandled cuda error (run with NCCL_DEBUG=INFO for details) (last error: ...)"; the
// last-error detail is NCCL's text for `comm` (or the process when null), left out when empty.
std::string nccl_error_text(ncclResult_t status, ncclComm_t comm = nullptr);

// Throws Error(failure) "<what> failed: <cuda_error_text>" unless `status` is cudaSuccess.
void check_cuda(cudaError_t status, std::string_view what, SourceLocation where = SourceLocation::current());
// Throws Error(failure) "<what> failed: <nccl_error_text>" unless `status` is ncclSuccess or ncclInProgress (which a
// non-blocking communicator answers while it works; the caller waits for it to settle).
void check_nccl(ncclResult_t status, std::string_view what, ncclComm_t comm = nullptr,
                SourceLocation where = SourceLocation::current());

// NCCL's version code as text: 22809 -> "2.28.9" (and the pre-2.9 encoding: 2803 -> "2.8.3").
std::string nccl_version_text(int code);
// CUDA's version code as text: 13000 -> "13.0", 12080 -> "12.8".
std::string cuda_version_text(int code);

// Makes `device` the current CUDA device for the guard's lifetime, then restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace distbench::nccl
