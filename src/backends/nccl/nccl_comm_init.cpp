#include "backends/nccl/nccl_comm_init.hpp"

#include "backends/nccl/cuda_check.hpp"
#include "backends/nccl/rank_layout.hpp"
#include "core/error.hpp"

#include <fmt/format.h>

#include <cstring>
#include <optional>

namespace distbench::nccl {
namespace {

// The unique id of this process's group, created by the group's first process and shared with everyone.
ncclUniqueId share_unique_id(Connector& connector, const RankLayout& layout, const std::string& label,
                             const ArmedStep& step) {
  ncclUniqueId id{};
  std::vector<std::byte> mine;
  std::optional<std::string> own_error;
  if (connector.rank() == layout.root_process) {
    const ncclResult_t status = ncclGetUniqueId(&id);
    if (status == ncclSuccess) {
      mine.resize(sizeof(id));
      std::memcpy(mine.data(), &id, sizeof(id));
    } else {
      own_error = nccl_error_text(status);
    }
  }
  const auto all = connector.allgather(mine, step);  // every process takes part, even when its root failed
  if (own_error) throw failure(fmt::format("ncclGetUniqueId for NCCL group {} failed: {}", label, *own_error));
  const auto& theirs = all.at(static_cast<std::size_t>(layout.root_process));
  if (theirs.size() != sizeof(id)) {
    throw failure(
        fmt::format("NCCL group {}: its first process (rank {}) could not create an NCCL unique id; see "
                    "that rank's error",
                    label, layout.root_process));
  }
  std::memcpy(&id, theirs.data(), sizeof(id));
  return id;
}

std::string group_label(const Partition& partition, const RankLayout& layout) {
  return fmt::format("'{}' ({} ranks from {})", partition.label.empty() ? "group" : partition.label, layout.nranks,
                     layout.first_rank);
}

}  // namespace

std::shared_ptr<NcclGroup> init_group(Connector& connector, const Partition& partition, const GroupSetup& setup,
                                      const ArmedStep& step) {
  const RankLayout layout = rank_layout(partition, connector.rank(), static_cast<int>(setup.devices.size()));
  const std::string label = group_label(partition, layout);
  ncclUniqueId id = share_unique_id(connector, layout, label, step);

  auto group = std::make_shared<NcclGroup>(setup.devices, layout.first_rank, layout.nranks, label, setup.timeout,
                                           setup.registry);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = setup.blocking ? 1 : 0;

  ncclResult_t status = ncclGroupStart();
  for (auto& part : group->parts()) {
    if (status != ncclSuccess && status != ncclInProgress) break;
    DeviceGuard guard(part.device);
    status = ncclCommInitRankConfig(&part.comm, layout.nranks, id, part.rank, &config);
  }
  const ncclResult_t end = ncclGroupEnd();
  if (status == ncclSuccess) status = end;
  const std::string what =
      fmt::format("ncclCommInitRankConfig (GPU {}, ranks {}..{} of {})", fmt::join(setup.devices, ","),
                  layout.first_rank, layout.first_rank + layout.parts - 1, layout.nranks);
  group->settle(status, what);
  group->wait([] { return true; }, setup.timeout, what);  // non-blocking: every communicator must have settled
  return group;
}

}  // namespace distbench::nccl
