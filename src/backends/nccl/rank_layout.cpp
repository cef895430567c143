#include "backends/nccl/rank_layout.hpp"

#include "core/error.hpp"

#include <algorithm>

namespace distbench::nccl {

RankLayout rank_layout(const Partition& partition, int process_rank, int gpus_per_process) {
  if (gpus_per_process < 1) {
    throw usage_error(fmt::format("-g/--ngpus must be at least 1 (got {})", gpus_per_process));
  }
  for (const auto& group : partition.groups) {
    const auto it = std::find(group.begin(), group.end(), process_rank);
    if (it == group.end()) continue;
    const int position = static_cast<int>(it - group.begin());
    return {static_cast<int>(group.size()) * gpus_per_process, position * gpus_per_process, gpus_per_process,
            group.front()};
  }
  throw usage_error(fmt::format("rank {} is in no group of the partition '{}'", process_rank, partition.label));
}

std::vector<int> choose_devices(int local_rank, int gpus_per_process, int device_index, int device_count) {
  if (device_count < 1) throw Error(ExitCode::unavailable, "no CUDA device is visible to this process");
  if (gpus_per_process > device_count) {
    throw usage_error(
        fmt::format("-g {} asks one process to drive {} GPUs but only {} are visible; lower -g or "
                    "check CUDA_VISIBLE_DEVICES",
                    gpus_per_process, gpus_per_process, device_count));
  }
  std::vector<int> devices;
  if (device_index >= 0) {
    if (device_index + gpus_per_process > device_count) {
      throw usage_error(fmt::format("device index {} with -g {} needs devices {}..{} but only {} are visible",
                                    device_index, gpus_per_process, device_index, device_index + gpus_per_process - 1,
                                    device_count));
    }
    for (int d = 0; d < gpus_per_process; ++d) devices.push_back(device_index + d);
    return devices;
  }
  for (int d = 0; d < gpus_per_process; ++d) devices.push_back((local_rank * gpus_per_process + d) % device_count);
  return devices;
}

}  // namespace distbench::nccl
