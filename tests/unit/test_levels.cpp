// Health's levels (benchmarks/health/levels): which phases each level runs, the soak's budget, the long level's
// probe lengths, and the names --level takes.
#include "benchmarks/health/levels.hpp"
#include "benchmarks/health/plan.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace distbench::health {
namespace {

HealthPlan plan_at(Level level, std::optional<double> soak_seconds = std::nullopt) {
  HealthPlan plan;
  plan.level = level;
  apply_level(plan, soak_seconds);
  return plan;
}

std::vector<std::string> phases_of(const HealthPlan& plan) {
  std::vector<std::string> out;
  for (const PhaseLevel& p : kPhaseLevels) {
    if (phase_runs(plan, p.phase)) out.emplace_back(p.phase);
  }
  return out;
}

TEST(Levels, EachLevelRunsItsPhases) {
  // quick: each node's own state, its GPUs' and its software's against the other nodes' (and the confirmation of a rank
  // the copy screening named); no collective bandwidth across nodes
  EXPECT_EQ(phases_of(plan_at(Level::quick)),
            (std::vector<std::string>{"start", "gpu", "rank", "clock", "drift", "confirm"}));
  // standard: the check as it was before levels, every phase but the soak
  EXPECT_EQ(phases_of(plan_at(Level::standard)),
            (std::vector<std::string>{"start", "gpu", "rank", "clock", "drift", "node", "confirm", "job", "links",
                                      "isolation", "stragglers"}));
  EXPECT_EQ(phases_of(plan_at(Level::long_run)),
            (std::vector<std::string>{"start", "gpu", "rank", "clock", "drift", "node", "confirm", "job", "links",
                                      "isolation", "stragglers", "soak"}));
  // a plan nobody set a level on is the standard check
  EXPECT_EQ(phases_of(HealthPlan{}), phases_of(plan_at(Level::standard)));
}

TEST(Levels, TheSoakRunsWheneverItHasABudget) {
  EXPECT_EQ(plan_at(Level::long_run).soak_seconds, kLongSoakSeconds);
  EXPECT_EQ(plan_at(Level::standard).soak_seconds, 0);
  EXPECT_EQ(plan_at(Level::quick).soak_seconds, 0);
  // --soak-seconds at any level: the soak alone after that level's phases; 0 turns the long level's off
  const HealthPlan quick_soak = plan_at(Level::quick, 2.5);
  EXPECT_EQ(quick_soak.soak_seconds, 2.5);
  EXPECT_EQ(phases_of(quick_soak),
            (std::vector<std::string>{"start", "gpu", "rank", "clock", "drift", "confirm", "soak"}));
  EXPECT_FALSE(phase_runs(plan_at(Level::long_run, 0.0), "soak"));
  EXPECT_TRUE(phase_runs(plan_at(Level::long_run, 0.0), "stragglers"));
}

TEST(Levels, LongMeasuresLongerAndTheOthersKeepTheDefaults) {
  const HealthPlan defaults;
  for (Level l : {Level::quick, Level::standard}) {
    const HealthPlan p = plan_at(l);
    EXPECT_EQ(p.copy_repetitions, defaults.copy_repetitions);
    EXPECT_EQ(p.min_probe_seconds, defaults.min_probe_seconds);
    EXPECT_EQ(p.allreduce_repetitions, defaults.allreduce_repetitions);
    EXPECT_EQ(p.latency_round_trips, defaults.latency_round_trips);
    EXPECT_EQ(p.straggler_iterations, defaults.straggler_iterations);
  }
  const HealthPlan p = plan_at(Level::long_run);
  EXPECT_EQ(p.copy_repetitions, 3 * defaults.copy_repetitions);
  EXPECT_EQ(p.min_probe_seconds, 3 * defaults.min_probe_seconds);
  EXPECT_EQ(p.allreduce_repetitions, 3 * defaults.allreduce_repetitions);
  EXPECT_EQ(p.latency_round_trips, 3 * defaults.latency_round_trips);
  EXPECT_EQ(p.straggler_iterations, 3 * defaults.straggler_iterations);
  // the bounds and the judgement are the same at every level
  EXPECT_EQ(p.timeout_s, defaults.timeout_s);
  EXPECT_EQ(p.bandwidth.tolerance, defaults.bandwidth.tolerance);
}

TEST(Levels, NamesRoundTripAndOthersAreRefused) {
  for (Level l : {Level::quick, Level::standard, Level::long_run}) EXPECT_EQ(parse_level(name(l)), l);
  EXPECT_EQ(name(Level::long_run), "long");
  EXPECT_FALSE(parse_level("Quick"));
  EXPECT_FALSE(parse_level(""));
  EXPECT_FALSE(parse_level("long_run"));
}

TEST(Levels, APhaseWithoutARowIsAnInternalError) {
  EXPECT_EQ(phase_level("links"), Level::standard);
  EXPECT_THROW(phase_level("nonesuch"), Error);
  EXPECT_THROW(phase_runs(HealthPlan{}, "nonesuch"), Error);
}

// What one node (or one rank) cannot test is said per phase, the phase first, so that the line reads alone.
TEST(Levels, WhatOneNodeCannotTestIsSaid) {
  EXPECT_EQ(untested_reason("links", 1, 2), "links: not tested: one node (a link joins two nodes)");
  EXPECT_EQ(untested_reason("clock", 1, 2).value_or("").rfind("clock: not tested: one node", 0), 0u);
  EXPECT_EQ(untested_reason("isolation", 1, 2).value_or("").rfind("isolation: not tested: one node", 0), 0u);
  EXPECT_EQ(untested_reason("stragglers", 1, 1).value_or("").rfind("stragglers: not tested: one rank", 0), 0u);
  EXPECT_FALSE(untested_reason("stragglers", 1, 2));  // two ranks of one node can be late
  for (const char* phase : {"links", "clock", "isolation", "rank", "node", "job"}) {
    EXPECT_FALSE(untested_reason(phase, 2, 4)) << phase;
  }
}

}  // namespace
}  // namespace distbench::health
