// The sweep's checker checked once, before its first case: for each element type and operator the plan runs, the
// device's count of wrong elements is run on a known-corrupted copy of an expected result of the plan's collective
// (core/device/checker_check.hpp) and must count exactly the corrupted elements. Outside every timer.
#pragma once

#include "benchmarks/collective/plan.hpp"
#include "core/comm/world.hpp"
#include "core/sys/watchdog.hpp"

namespace distbench::collective {

// Collective over the world: every rank checks its own device as rank `rank` of a group of `nranks`, and every rank
// throws the same Error(failure) when any rank's checker miscounted. Nothing to check with -c 0 (no verification).
void check_sweep_checker(World& world, const SweepPlan& plan, Watchdog& watchdog, int nranks, int rank);

}  // namespace distbench::collective
