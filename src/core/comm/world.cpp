#include "core/comm/world.hpp"

namespace distbench {

World::World(Connector& connector, std::unique_ptr<Backend> backend, const ArmedStep& step)
    : connector_(connector), backend_(std::move(backend)) {
  communicator(world_partition(connector_.size()), step);  // eager: the world group always exists
}

Communicator& World::communicator(const Partition& partition, const ArmedStep& step) {
  auto it = cache_.find(partition.groups);
  if (it == cache_.end()) {
    it = cache_.emplace(partition.groups, backend_->create_communicator(partition, step)).first;
  }
  return *it->second;
}

}  // namespace distbench
