#include "backends/nccl/gpu_info.hpp"

#include "backends/nccl/cuda_check.hpp"

#include <fmt/core.h>

#include <array>

namespace distbench::nccl {
namespace {

int nccl_library_version() {
  int version = 0;
  return ncclGetVersion(&version) == ncclSuccess ? version : 0;
}

std::string gpu_entry(int device) {
  cudaDeviceProp prop{};
  const cudaError_t status = cudaGetDeviceProperties(&prop, device);
  if (status != cudaSuccess) return fmt::format("unknown ({})", cuda_error_text(status));
  std::array<char, 32> bus{};
  const bool has_bus = cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), device) == cudaSuccess;
  return fmt::format("{}, PCI {}, {:.1f} GiB, compute capability {}.{}", prop.name, has_bus ? bus.data() : "unknown",
                     static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0), prop.major, prop.minor);
}

}  // namespace

std::optional<std::string> cuda_unavailable_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    return fmt::format("no CUDA device is visible (cudaGetDeviceCount: {})", cudaGetErrorString(status));
  }
  if (count < 1) return std::string("no CUDA device is visible (cudaGetDeviceCount found 0 devices)");
  return std::nullopt;
}

KeyValues build_versions() {
  return {{"cuda.runtime", cuda_version_text(CUDART_VERSION)},
          {"nccl.header", nccl_version_text(NCCL_VERSION_CODE)},
          {"nccl.library", nccl_version_text(nccl_library_version())}};
}

KeyValues runtime_versions() {
  KeyValues out;
  int driver = 0;
  const cudaError_t driver_status = cudaDriverGetVersion(&driver);
  out.emplace_back("cuda.driver", driver_status == cudaSuccess && driver > 0 ? cuda_version_text(driver) : "none");
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) out.emplace_back("cuda.runtime", cuda_version_text(runtime));
  const int library = nccl_library_version();
  out.emplace_back("nccl.header", nccl_version_text(NCCL_VERSION_CODE));
  out.emplace_back("nccl.library", nccl_version_text(library));
  if (library != NCCL_VERSION_CODE) {
    out.emplace_back("warning", fmt::format("NCCL library {} differs from the header {} distbench was built with; "
                                            "point LD_LIBRARY_PATH at NCCL {} or rebuild against {}",
                                            nccl_version_text(library), nccl_version_text(NCCL_VERSION_CODE),
                                            nccl_version_text(NCCL_VERSION_CODE), nccl_version_text(library)));
  }
  return out;
}

KeyValues gpu_entries() {
  KeyValues out;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return out;
  }
  for (int device = 0; device < count; ++device) out.emplace_back(fmt::format("gpu.{}", device), gpu_entry(device));
  return out;
}

}  // namespace distbench::nccl
