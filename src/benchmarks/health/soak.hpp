// The data-corruption soak (--level long, or --soak-seconds S at any level): allreduce calls of several sizes and
// dtypes on every rank, again and again for a time budget, each result checked element by element on the rank that
// received it, so that a GPU, a link or a NIC that corrupts data now and then is named: the rank, its host and its
// device, how many calls read back wrong of how many run, and how many elements. nccl-tests' users hunt
// intermittent silent data corruption by hand with -c (check every iteration); this is that hunt, bounded.
#pragma once

#include "benchmarks/health/evaluate.hpp"
#include "benchmarks/health/phase_runner.hpp"
#include "benchmarks/health/plan.hpp"
#include "benchmarks/health/verdict.hpp"
#include "core/comm/world.hpp"
#include "core/device/dtype.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <vector>

namespace distbench::health {

// One call of the soak's rotation: an allreduce (sum) of `bytes` of `dtype`.
struct SoakCase {
  DType dtype;
  std::size_t bytes;
};

// The rotation, each case at most --allreduce-bytes: float32 at --allreduce-bytes (the bandwidth path: NCCL's Simple
// protocol, MPI's large-message algorithms), bfloat16 at 1 MiB (a 16-bit reduction: another kernel, LL128), int32
// at 64 KiB (integer adds) and float64 at 4 KiB (the latency path: NCCL's LL protocol, MPI's small-message
// algorithms). A case the backend cannot run is left out on every rank alike.
std::vector<SoakCase> soak_cases(const HealthPlan& plan);

// The soak phase's bound: its budget, then -T for the round that was under way and the ranks' agreement to stop.
inline double soak_phase_timeout_s(const HealthPlan& plan) { return plan.soak_seconds + plan.timeout_s; }

// Every rank: rounds of the rotation over `comm` until the budget is spent, each result poisoned before the call and
// checked after it; after each round the ranks agree (a one-element allreduce, max) whether any rank's budget is
// spent, so that every rank makes the same calls. This rank's "calls", "calls_wrong", "elements_wrong",
// "elements_checked", "seconds", its device, and per case the calls that read back wrong ("wrong_cases") and the
// first such call ("first_wrong_call", from 1).
nlohmann::json probe_soak(World& world, Communicator& comm, const HealthPlan& plan, PhaseContext& ctx);

// The root's judgement: per rank soak.calls_wrong and soak.elements_wrong (failed above 0, naming the rank's host and
// device, how often and in which cases), and the calls each rank ran (soak.calls, the job's, information).
std::vector<Check> soak_checks(const PhaseResult& phase, const Topology& topo, const HealthPlan& plan);

}  // namespace distbench::health
