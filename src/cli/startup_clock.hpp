// This rank's marks as the job forms (core/report/startup.hpp): taken as main() begins, around the connector, the
// backend, the world's communicator and a first collective over the world; gathered to the root once.
#pragma once

#include "core/comm/world.hpp"
#include "core/report/startup.hpp"

#include <chrono>

namespace distbench::cli {

// Seconds from this process's start (the kernel's record of it, in clock ticks: 10 ms steps) to now; NaN where
// /proc cannot say.
double seconds_since_process_start();

struct StartupClock {
  using Clock = std::chrono::steady_clock;
  Clock::time_point main_entered = Clock::now();
  double launch_s = seconds_since_process_start();  // process start to main(), as main() begins
  Clock::time_point connect_begun{}, connected{}, backend_chosen{}, world_formed{}, first_collective_done{};
};

// The first collective: one float summed over the world's communicator, waited for within -T (its step's).
void time_first_collective(World& world, StartupClock& clock, double timeout_s, const ArmedStep& step);

// Collective (a gather to the root, 8 doubles a rank, after a barrier that is the ranks' common instant): every rank's
// phases and how late it began, in rank order (hosts from `hosts`) on the root; empty elsewhere.
std::vector<StartupRank> gather_startup(Connector& connector, const StartupClock& clock,
                                        const std::vector<std::string>& hosts, const ArmedStep& step);

}  // namespace distbench::cli
