// The NCCL backend: collectives on GPU memory with NCCL, one CUDA device per rank (several per process with -g).
// This header is read by the registry and includes no CUDA or NCCL header.
#pragma once

#include "core/comm/backend.hpp"

namespace distbench::nccl {

BackendEntry nccl_backend_entry();

}  // namespace distbench::nccl
