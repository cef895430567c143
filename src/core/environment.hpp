// Facts about the process's environment that reports record.
#pragma once

#include "core/backend.hpp"

#include <string>

namespace distbench {

// NCCL_*, OMPI_*, UCX_* (and CUDA_VISIBLE_DEVICES) variables, sorted by name; OpenMPI's per-process bookkeeping
// variables (OMPI_COMM_WORLD_*, OMPI_MCA_orte_*, ...) are left out since they differ per rank and say nothing about
// the configuration.
KeyValues captured_environment();
// Now, as ISO 8601 UTC with seconds ("2026-11-22T03:04:05Z").
std::string iso_time_now();

}  // namespace distbench
