// The description of a run that reports carry: tool, arguments, ranks, versions, environment.
#pragma once

#include "core/run_info.hpp"
#include "core/world.hpp"

#include <string>
#include <vector>

namespace distbench::cli {

// Collective: gathers every rank's host and local rank.
RunInfo make_run_info(Connector& connector, World& world, const BackendEntry& entry,
                      const std::vector<std::string>& argv);

}  // namespace distbench::cli
