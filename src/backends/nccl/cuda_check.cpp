#include "backends/nccl/cuda_check.hpp"

#include "core/error.hpp"

#include <fmt/core.h>

namespace distbench::nccl {

std::string cuda_error_text(cudaError_t status) {
  return fmt::format("{}: {}", cudaGetErrorName(status), cudaGetErrorString(status));
}

std::string nccl_error_text(ncclResult_t status, ncclComm_t comm) {
  std::string text = ncclGetErrorString(status);
  const char* last = ncclGetLastError(comm);
  if (last != nullptr && *last != '\0') text += fmt::format(" (last error: {})", last);
  return text;
}

void check_cuda(cudaError_t status, std::string_view what, SourceLocation where) {
  if (status == cudaSuccess) return;
  throw Error(ExitCode::failure, fmt::format("{} failed: {}", what, cuda_error_text(status)), where);
}

void check_nccl(ncclResult_t status, std::string_view what, ncclComm_t comm, SourceLocation where) {
  if (status == ncclSuccess || status == ncclInProgress) return;
  throw Error(ExitCode::failure, fmt::format("{} failed: {}", what, nccl_error_text(status, comm)), where);
}

std::string nccl_version_text(int code) {
  if (code < 10000) return fmt::format("{}.{}.{}", code / 1000, (code % 1000) / 100, code % 100);
  return fmt::format("{}.{}.{}", code / 10000, (code % 10000) / 100, code % 100);
}

std::string cuda_version_text(int code) { return fmt::format("{}.{}", code / 1000, (code % 1000) / 10); }

DeviceGuard::DeviceGuard(int device) {
  check_cuda(cudaGetDevice(&previous_), "cudaGetDevice");
  if (previous_ != device) check_cuda(cudaSetDevice(device), fmt::format("cudaSetDevice({})", device));
}

DeviceGuard::~DeviceGuard() {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current != previous_) cudaSetDevice(previous_);
}

}  // namespace distbench::nccl
