// What this machine's CUDA and NCCL are: for the backend entry (availability, build versions) and `distbench info`.
#pragma once

#include "core/comm/backend.hpp"

#include <optional>
#include <string>

namespace distbench::nccl {

// nullopt when cudaGetDeviceCount finds at least one device; else why not, e.g. "no CUDA device is visible
// (cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version)".
std::optional<std::string> cuda_unavailable_reason();

// Versions fixed when this binary was built (the CUDA runtime it links, NCCL's header) and the NCCL library loaded.
KeyValues build_versions();

// Driver and runtime versions, NCCL header and library versions, and a "warning" entry when NCCL's header and library
// differ.
KeyValues runtime_versions();

// One entry per visible GPU: "gpu.<i>" -> "NVIDIA H100 80GB HBM3, PCI 0000:19:00.0, 79.2 GiB".
KeyValues gpu_entries();

}  // namespace distbench::nccl
