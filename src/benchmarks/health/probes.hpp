// What each rank measures in each phase of a health check: the bodies that PhaseRunner runs. Each returns its
// figures as JSON for the root and waits only until its context's deadline.
#pragma once

#include "benchmarks/health/phase_runner.hpp"
#include "benchmarks/health/plan.hpp"
#include "benchmarks/health/schedule.hpp"
#include "core/comm/world.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace distbench::health {

// Phase 1, every rank: allocate and touch memory, a compute sanity check (fill, then verify every element), the
// device's copy bandwidth (host memory bandwidth on the MPI backend).
nlohmann::json probe_rank(World& world, const HealthPlan& plan, PhaseContext& ctx);

// The copy bandwidth part of probe_rank alone ("copy_gbps"), for a suspect's re-test.
nlohmann::json probe_copy(World& world, const HealthPlan& plan, PhaseContext& ctx);

// Phase gpu, the first rank of each node (the others return {}): NVML's readings of every GPU on the node
// ("nvml", or "nvml_unavailable": why), the copy bandwidth between the node's GPUs ("peer_copies"), the XID events
// NVML reported during the phase ("xid_events") and the XIDs of the kernel log since boot ("kernel_xids").
nlohmann::json probe_gpus(World& world, const HealthPlan& plan, PhaseContext& ctx);

// Phase 1, clock: the root ping-pongs with the first rank of every other node and keeps, per node, the offsets of its
// wall clock and its steady clock from the root's at the round trip with the least delay (Cristian's method).
// `leaders`: the first rank of each node, in node order.
nlohmann::json probe_clock(Connector& connector, const std::vector<int>& leaders, PhaseContext& ctx);

// Phases 2 and 3: an allreduce of `bytes` over `comm` (a node's ranks, or all): one warm-up, one call verified
// element by element, then timed calls; this rank's best time and wrong elements.
nlohmann::json probe_allreduce(World& world, Communicator& comm, const HealthPlan& plan, PhaseContext& ctx);

// Phases 4 and 5, the first rank of each node: for each pair it belongs to (in order), bandwidth in both directions
// (windows of messages, acknowledged) and latency (ping-pong). `world_comm` holds every rank; `leaders` as above.
// With `pass_gbps` > 0 (isolation), a direction below it is measured again, up to `attempts` times in all.
nlohmann::json probe_links(World& world, Communicator& world_comm, const std::vector<int>& leaders,
                           const std::vector<NodePair>& pairs, const HealthPlan& plan, PhaseContext& ctx,
                           double pass_gbps = 0, int attempts = 1);

// Phase 6, every rank: iterations of equal local work followed by a small allreduce; the steady-clock time at which
// this rank arrived at each allreduce.
nlohmann::json probe_stragglers(World& world, Communicator& world_comm, const HealthPlan& plan, PhaseContext& ctx);

}  // namespace distbench::health
