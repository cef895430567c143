// The checker checked on every rank before a benchmark verifies anything (core/device/checker_check.hpp), every rank
// leaving with the same error when one rank's checker miscounts.
#pragma once

#include "core/comm/world.hpp"
#include "core/device/checker_check.hpp"
#include "core/sys/watchdog.hpp"

#include <span>

namespace distbench {

// Collective over the world: check_checker on this rank's device for each case (a random element drawn afresh for
// each), then every rank throws the first failing rank's Error(failure), if any.
void check_checker_everywhere(World& world, Watchdog& watchdog, std::span<const CheckerCase> cases);

}  // namespace distbench
