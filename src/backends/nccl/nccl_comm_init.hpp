// Setting up the NCCL communicators of one group, collectively over the connector: the group's first process creates
// the NCCL unique id, every process learns it through an allgather, and each initialises one communicator per GPU it
// drives (ncclCommInitRankConfig, grouped when there are several). Initialisation is non-blocking unless -z asks for
// blocking communicators, and is polled with a timeout; a failure or timeout aborts what was created.
#pragma once

#include "backends/nccl/buffer_registry.hpp"
#include "backends/nccl/nccl_group.hpp"
#include "core/comm/connector.hpp"
#include "core/comm/groups.hpp"

#include <memory>
#include <vector>

namespace distbench::nccl {

struct GroupSetup {
  std::vector<int> devices;  // CUDA ordinals this process drives, in part order
  bool blocking = false;     // -z: blocking communicators
  Seconds timeout = kDefaultTimeout;
  std::shared_ptr<BufferRegistry> registry;  // -R, else null
};

// Collective over every process of the connector. Throws Error(failure) on NCCL errors, Error(timeout) when
// initialisation outlives setup.timeout.
// Collective over the connector's ranks, inside `step`.
std::shared_ptr<NcclGroup> init_group(Connector& connector, const Partition& partition, const GroupSetup& setup,
                                      const ArmedStep& step);

}  // namespace distbench::nccl
