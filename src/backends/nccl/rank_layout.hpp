// Where this process's GPUs sit in an NCCL group. The connector has one process per world rank; with -g each process
// drives several GPUs, each its own NCCL rank: the process at position i of its group (ascending world ranks) owns
// group ranks i*g .. i*g+g-1, so any partition of the processes maps onto NCCL groups.
#pragma once

#include "core/comm/groups.hpp"

#include <vector>

namespace distbench::nccl {

struct RankLayout {
  int nranks = 1;        // NCCL ranks in the group: processes * gpus_per_process
  int first_rank = 0;    // group rank of this process's first GPU
  int parts = 1;         // GPUs (ranks) this process drives
  int root_process = 0;  // world rank of the group's first process, which creates the NCCL unique id
};

// Throws usage_error when gpus_per_process < 1 or `process_rank` is in no group of `partition`.
RankLayout rank_layout(const Partition& partition, int process_rank, int gpus_per_process);

// The CUDA devices a process drives: `device_index` onwards when given (>= 0), else the next `gpus_per_process` after
// those of the lower local ranks, wrapping around the visible devices (several processes then share a GPU, which
// NCCL allows only with per-rank NCCL_HOSTID). Throws usage_error when one process would drive a GPU twice or
// `device_index` names a device that is not visible.
std::vector<int> choose_devices(int local_rank, int gpus_per_process, int device_index, int device_count);

}  // namespace distbench::nccl
