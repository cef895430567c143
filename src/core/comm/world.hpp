// A World: the connector, the chosen backend and its communicators, cached per partition of the ranks.
#pragma once

#include "core/comm/backend.hpp"

#include <map>
#include <memory>
#include <vector>

namespace distbench {

class World {
 public:
  // Creates the world's communicator: collective, inside `step`.
  World(Connector& connector, std::unique_ptr<Backend> backend, const ArmedStep& step);

  Connector& connector() { return connector_; }
  Backend& backend() { return *backend_; }
  Device& device() { return backend_->device(); }

  // The communicator of this rank's group in `partition`. Collective over the whole world the first time a
  // partition is asked for (every rank must ask for the same partitions in the same order); cached after that.
  Communicator& communicator(const Partition& partition, const ArmedStep& step);

 private:
  Connector& connector_;
  std::unique_ptr<Backend> backend_;
  std::map<std::vector<std::vector<int>>, std::unique_ptr<Communicator>> cache_;
};

}  // namespace distbench
